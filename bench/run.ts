// `npm run bench`: the gateway against a bare proxy in the same run (issue 7).
//
// Layout (2 cores): this process is the load generator (autocannon); the mock upstream, the floor
// proxy and the gateway are separate processes. Pinned (the default where taskset works), the
// process under test (floor or gateway; one is loaded at a time) has CPU 1 and the load generator
// and the mock share CPU 0, so both proxies are measured on the same core. Scenarios are run in
// rounds, interleaved (direct, floor, gateway…, direct, floor, gateway…), and each figure is taken
// over all rounds, so a burst of other work on the machine hits every scenario alike.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type MemoryTuning, pendingTuning } from '../bin/memory-tuning.js';
import { compileBench, type CompileResult } from './compile-bench.ts';
import { inlineBench, type InlineResult } from './inline-bench.ts';
import { stageBench, type StageCosts } from './stage-bench.ts';
import { semanticBench, type SemanticResult } from './semantic-bench.ts';

/** A common embedding model's output size. */
const SEMANTIC_DIMENSIONS = 1536;
import { latency, type LoadGenerator, type LoadTarget, median, summarise, throughput, warm } from './load.ts';
import { type BenchProcess, canPin, fillCompileCache, pin, startProcess } from './processes.ts';
import type { ProbeStats } from './probe.ts';
import { describeMachine, machine, otherTable, type ScenarioResult, scenarioTable, targetTable } from './report.ts';
import { createLimitPolicy, createVirtualKeyConfig, GATEWAY_KEY, SCENARIOS, type Scenario, savedConfigs, type Urls } from './scenarios.ts';
import { checkTargets } from './targets.ts';
import { wrkAvailable } from './wrk.ts';
import { METRICS_SETTINGS, REQUEST_LOG_SETTINGS } from '../runtime/cli/serve-env.ts';

/** Settings of the log and metrics a caller's environment may hold, emptied for the gateway that has both off. */
const BARE_UNSET = Object.fromEntries([...REQUEST_LOG_SETTINGS, ...METRICS_SETTINGS].map((name) => [name, '']));

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..');

export const USAGE = `Usage: npm run bench -- [options]

Starts a mock upstream, a floor proxy and the gateway (saved configs) as separate processes, loads
each scenario with autocannon, then times config compilation, inline-config lookups and semantic-
cache lookups. Prints a
table and the issue's targets (pass/miss with margin); writes JSON to --out.

Options:
  --duration S          measured seconds of each throughput run (default 3)
  --latency-duration S  seconds of each one-connection latency run (default 2)
  --warmup S            seconds of load before the first round of each scenario (default 1)
  --rounds N            interleaved rounds; req/s is the median, × floor the median of per-round
                        ratios to the floor, latency pools all rounds (default 3)
  --connections N       connections of the throughput runs (default 32)
  --only IDS            comma-separated scenario ids (the direct, floor and ceiling runs they are
                        compared against are added as needed):
                        ${SCENARIOS.map((s) => s.id).join(', ')}
  --configs N           generated configs for the compile benchmark (default 1000; 0 skips it)
  --no-inline           skip the inline-config benchmark
  --no-stages           skip the in-process stage benchmark (pipeline CPU of the single route as it
                        is, with three guardrail checks, and with a cache: miss path and hit)
  --semantic-entries N  vectors in the semantic-lookup benchmark (default 100000, 1536 dimensions;
                        0 skips it; filling 100000 takes one to two minutes on 2 cores)
  --no-pin              leave process placement to the OS
  --node-flags FLAGS    extra node flags for the floor and the gateway alike, e.g.
                        "--max-semi-space-size=16"
  --cpu-prof DIR        write CPU profiles to DIR/<process>/ (gateway, bare, redis, floor, responder;
                        one file per thread)
  --load-generator G    wrk or autocannon for the throughput runs (default: wrk when installed,
                        from Debian's package: apt-get install wrk; else autocannon)
  --out FILE            results JSON (default bench/results/latest.json)
  -h, --help            show this help`;

interface Options {
  duration: number;
  latencyDuration: number;
  warmup: number;
  rounds: number;
  connections: number;
  only: string[] | null;
  configs: number;
  inline: boolean;
  stages: boolean;
  semanticEntries: number;
  pin: boolean;
  cpuProf: string | null;
  nodeFlags: string[];
  out: string;
  loadGenerator: 'wrk' | 'autocannon';
}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      duration: { type: 'string', default: '3' },
      'latency-duration': { type: 'string', default: '2' },
      warmup: { type: 'string', default: '1' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '32' },
      only: { type: 'string' },
      configs: { type: 'string', default: '1000' },
      'no-inline': { type: 'boolean', default: false },
      'no-stages': { type: 'boolean', default: false },
      'semantic-entries': { type: 'string', default: '100000' },
      'no-pin': { type: 'boolean', default: false },
      'cpu-prof': { type: 'string' },
      'load-generator': { type: 'string' },
      'node-flags': { type: 'string', default: '' },
      out: { type: 'string', default: join(HERE, 'results', 'latest.json') },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return null;
  const number = (name: string, raw: string, min: number): number => {
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min) throw new Error(`--${name} must be a number ≥ ${min}, not ${JSON.stringify(raw)}`);
    return value;
  };
  const only = values.only === undefined ? null : values.only.split(',').map((s) => s.trim()).filter(Boolean);
  for (const id of only ?? []) if (!SCENARIOS.some((s) => s.id === id)) throw new Error(`--only: unknown scenario ${JSON.stringify(id)}`);
  return {
    duration: number('duration', values.duration, 0.1),
    latencyDuration: number('latency-duration', values['latency-duration'], 0.1),
    warmup: number('warmup', values.warmup, 0),
    rounds: Math.floor(number('rounds', values.rounds, 1)),
    connections: Math.floor(number('connections', values.connections, 1)),
    only,
    configs: Math.floor(number('configs', values.configs, 0)),
    inline: !values['no-inline'],
    stages: !values['no-stages'],
    semanticEntries: Math.floor(number('semantic-entries', values['semantic-entries'], 0)),
    pin: !values['no-pin'],
    cpuProf: values['cpu-prof'] === undefined ? null : resolve(values['cpu-prof']),
    nodeFlags: values['node-flags'].split(/\s+/).filter(Boolean),
    out: resolve(values.out),
    loadGenerator: loadGeneratorOf(values['load-generator']),
  };
}

/** wrk when installed (or asked for), else autocannon. */
function loadGeneratorOf(asked: string | undefined): 'wrk' | 'autocannon' {
  if (asked === 'autocannon') return 'autocannon';
  if (asked === 'wrk') {
    if (!wrkAvailable()) throw new Error('--load-generator wrk: wrk is not installed (apt-get install wrk)');
    return 'wrk';
  }
  if (asked !== undefined) throw new Error(`--load-generator must be wrk or autocannon, not ${JSON.stringify(asked)}`);
  return wrkAvailable() ? 'wrk' : 'autocannon';
}

/** The selected scenarios plus the direct, floor and ceiling runs they are compared against, in table order. */
function selectScenarios(only: string[] | null): Scenario[] {
  if (only === null) return [...SCENARIOS];
  const wanted = new Set(only);
  for (const s of SCENARIOS) {
    if (!wanted.has(s.id)) continue;
    if (s.floor !== null) wanted.add(s.floor);
    if (s.direct !== null) wanted.add(s.direct);
    if (s.ceiling !== undefined) wanted.add(s.ceiling);
  }
  for (const s of SCENARIOS) if (wanted.has(s.id) && s.direct !== null) wanted.add(s.direct);
  return SCENARIOS.filter((s) => wanted.has(s.id));
}

const progress = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** One request before loading: the right status, the right target, a whole body. */
async function checkScenario(scenario: Scenario, target: LoadTarget): Promise<void> {
  const response = await fetch(new URL(target.path, target.url), { method: target.method, headers: target.headers, body: target.body });
  const text = await response.text();
  const problems: string[] = [];
  if (response.status !== 200) problems.push(`status ${response.status}: ${text.slice(0, 300)}`);
  if (scenario.streaming ? !text.includes('data: [DONE]') : !text.includes('"chatcmpl-bench"')) problems.push('unexpected body');
  const leaf = response.headers.get('x-gateway-last-used-option-index');
  if (scenario.expectLeaf !== undefined && (leaf === null || !scenario.expectLeaf.test(leaf))) problems.push(`answered by ${leaf}, expected ${scenario.expectLeaf}`);
  if (problems.length > 0) throw new Error(`scenario ${scenario.id} is not working: ${problems.join('; ')}`);
}

/** What the rounds of one scenario add up to. */
interface ScenarioRuns {
  requestsPerSecond: number[];
  /** CPU µs per response of each round (the process under test). */
  cpuPerRequest: number[];
  requests: number;
  failures: number;
  cpuMicros: number;
  /** The part of cpuMicros spent by worker threads; null when the process could not tell. */
  workerMicros: number | null;
  wallMicros: number;
  mockCpuMicros: number;
  latencyMs: number[];
  peakRssBytes: number | null;
}

function describeTuning(tuning: MemoryTuning): string {
  const settings = [...tuning.flags, ...Object.entries(tuning.env).map(([name, value]) => `${name}=${value}`)];
  return settings.length > 0 ? settings.join(' ') : 'none';
}

function cpuMicros(before: ProbeStats, after: ProbeStats): number {
  return after.userMicros + after.systemMicros - before.userMicros - before.systemMicros;
}

async function main(): Promise<number> {
  let options: Options | null;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options === null) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const scenarios = selectScenarios(options.only);
  const pinned = options.pin && canPin();
  const host = machine();
  const generatorName = options.loadGenerator === 'wrk' ? 'wrk (own process) for throughput, autocannon for 1-connection latency' : 'autocannon (this process)';
  const generator: LoadGenerator = options.loadGenerator === 'wrk' ? { kind: 'wrk', cpus: pinned ? '0' : null } : { kind: 'autocannon' };
  const layout = pinned
    ? `load generator (${generatorName}) + mock on CPU 0; floor proxy, gateway and responder (one loaded at a time) on CPU 1`
    : `load generator (${generatorName}), mock, floor proxy, gateway and responder as separate processes, placed by the OS`;
  progress(`bench: ${describeMachine(host)}\nbench: ${layout}`);
  if (pinned) pin(process.pid, '0');

  const work = await mkdtemp(join(tmpdir(), 'gateway-bench-'));
  const processes: BenchProcess[] = [];
  const profFlags = (name: string) => [
    ...options.nodeFlags,
    // One directory per process and Node's default file names: each thread (the request log's writer
    // is a worker) writes a profile of its own instead of overwriting the main thread's.
    ...(options.cpuProf === null ? [] : ['--cpu-prof', '--cpu-prof-dir', join(options.cpuProf, name)]),
  ];
  // serve re-executes itself with its memory tuning (bin/memory-tuning.js) but cannot keep the
  // probe's IPC channel across that, so the bench gives the gateway the same tuning (flags passed with
  // --node-flags, and GATEWAY_MEMORY_TUNING=off, win as they do for serve).
  const tuning = pendingTuning(options.nodeFlags, process.env) ?? { flags: [], env: {} };
  const results: ScenarioResult[] = [];
  let compile: CompileResult | null = null;
  let inline: InlineResult | null = null;
  let stages: StageCosts | null = null;
  let semantic: SemanticResult | null = null;
  try {
    if (options.cpuProf !== null) await mkdir(options.cpuProf, { recursive: true });
    const mock = await startProcess('mock', join(HERE, 'mock-upstream.ts'), { cpus: pinned ? '0' : null });
    processes.push(mock);
    const floor = await startProcess('floor', join(HERE, 'floor-proxy.ts'), { args: [mock.url], cpus: pinned ? '1' : null, nodeFlags: profFlags('floor') });
    processes.push(floor);
    const configsDir = join(work, 'configs');
    await mkdir(configsDir);
    for (const [id, config] of Object.entries(savedConfigs(mock.url))) await writeFile(join(configsDir, `${id}.json`), JSON.stringify(config, null, 2));
    // The probe is TypeScript and loads before bin/gateway.js turns Node's compile cache on: on from the
    // start (Node's default folder), the probe needs type stripping no more than the gateway does.
    const gatewayEnv = { ...tuning.env, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE || join(tmpdir(), 'node-compile-cache') };
    const gatewayBin = join(ROOT, 'bin', 'gateway.js');
    // Measured as the gateway runs after its first start, with every module in the compile cache.
    fillCompileCache(gatewayBin, ['serve', '--help'], { env: gatewayEnv, nodeFlags: [...options.nodeFlags, ...tuning.flags] });
    const gateway = await startProcess('gateway', gatewayBin, {
      args: ['serve', '--port', '0', '--host', '127.0.0.1', '--configs', configsDir, '--data', join(work, 'data')],
      env: { GATEWAY_API_KEY: GATEWAY_KEY, ...gatewayEnv },
      cpus: pinned ? '1' : null,
      nodeFlags: [...profFlags('gateway'), ...tuning.flags],
    });
    processes.push(gateway);
    // The same gateway with nothing that claims a stage, for the cost of the pipeline itself.
    const bare = scenarios.some((s) => s.via === 'bare')
      ? await startProcess('bare gateway', gatewayBin, {
          args: ['serve', '--port', '0', '--host', '127.0.0.1', '--configs', configsDir, '--data', join(work, 'data-bare')],
          // The log's and metrics' own settings emptied: serve refuses them set beside what turns them off.
          env: { GATEWAY_API_KEY: GATEWAY_KEY, GATEWAY_REQUEST_LOG: 'off', GATEWAY_METRICS: 'off', ...BARE_UNSET, ...gatewayEnv },
          cpus: pinned ? '1' : null,
          nodeFlags: [...profFlags('bare'), ...tuning.flags],
        })
      : null;
    if (bare !== null) processes.push(bare);
    // The same gateway counting limits in Redis, for what one round trip per request adds.
    const redis = scenarios.some((s) => s.via === 'redis')
      ? await startProcess('redis gateway', gatewayBin, {
          args: ['serve', '--port', '0', '--host', '127.0.0.1', '--configs', configsDir, '--data', join(work, 'data-redis')],
          env: { GATEWAY_API_KEY: GATEWAY_KEY, REDIS_URL: process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379', ...gatewayEnv },
          cpus: pinned ? '1' : null,
          nodeFlags: [...profFlags('redis'), ...tuning.flags],
        })
      : null;
    if (redis !== null) processes.push(redis);
    // The mock's server again, on the gateway's core: what a Node server that does nothing but answer costs there.
    const responder = scenarios.some((s) => s.via === 'responder')
      ? await startProcess('responder', join(HERE, 'mock-upstream.ts'), { cpus: pinned ? '1' : null, nodeFlags: profFlags('responder') })
      : null;
    if (responder !== null) processes.push(responder);
    const urls: Urls = { mock: mock.url, floor: floor.url, gateway: gateway.url, bare: bare?.url ?? null, redis: redis?.url ?? null, responder: responder?.url ?? null };
    if (scenarios.some((s) => s.id === 'virtual-key')) await createVirtualKeyConfig(urls);
    if (scenarios.some((s) => s.id === 'limited')) await createLimitPolicy(urls.gateway);
    if (redis !== null && scenarios.some((s) => s.id === 'limited-redis')) await createLimitPolicy(redis.url);
    const underTest = { direct: null, floor, gateway, bare, redis, responder } as const;

    const runs = new Map<string, ScenarioRuns>(scenarios.map((s) => [s.id, { requestsPerSecond: [], cpuPerRequest: [], requests: 0, failures: 0, cpuMicros: 0, workerMicros: 0, wallMicros: 0, mockCpuMicros: 0, latencyMs: [], peakRssBytes: null }]));
    for (const scenario of scenarios) await checkScenario(scenario, scenario.target(urls));
    for (let round = 1; round <= options.rounds; round++) {
      for (const [index, scenario] of scenarios.entries()) {
        const target = scenario.target(urls);
        const proc = underTest[scenario.via];
        const into = runs.get(scenario.id)!;
        // The first round warms JIT and pools; later ones only reopen the load generator's connections.
        await warm(target, options.connections, round === 1 ? options.warmup : Math.min(0.3, options.warmup));
        const [procBefore, mockBefore] = await Promise.all([proc?.stats(), mock.stats()]);
        const started = performance.now();
        const load = await throughput(target, options.connections, options.duration, generator);
        const wallMicros = (performance.now() - started) * 1000;
        const [procAfter, mockAfter] = await Promise.all([proc?.stats(), mock.stats()]);
        await warm(target, 1, Math.min(0.3, options.warmup));
        const lat = await latency(target, options.latencyDuration);
        const procEnd = await proc?.stats();
        into.requestsPerSecond.push(load.requestsPerSecond);
        into.requests += load.requests;
        into.failures += load.failures + lat.failures;
        into.wallMicros += wallMicros;
        into.mockCpuMicros += cpuMicros(mockBefore, mockAfter);
        if (procBefore && procAfter) {
          into.cpuMicros += cpuMicros(procBefore, procAfter);
          const workerBefore = procBefore.workerThreadMicros;
          const workerAfter = procAfter.workerThreadMicros;
          into.workerMicros = into.workerMicros === null || workerBefore === null || workerAfter === null ? null : into.workerMicros + workerAfter - workerBefore;
          into.cpuPerRequest.push(cpuMicros(procBefore, procAfter) / Math.max(1, load.requests));
        }
        if (procEnd) into.peakRssBytes = procEnd.peakRssBytes;
        into.latencyMs.push(...lat.samplesMs);
        const p50 = summarise(lat.samplesMs).p50Ms;
        progress(`[round ${round}/${options.rounds}, ${index + 1}/${scenarios.length}] ${scenario.id.padEnd(13)} ${load.requestsPerSecond.toFixed(0).padStart(6)} req/s @${options.connections}, p50 ${p50.toFixed(3)} ms @1`);
      }
    }
    for (const scenario of scenarios) {
      const r = runs.get(scenario.id)!;
      const lat = summarise(r.latencyMs);
      const measured = scenario.via !== 'direct';
      results.push({
        id: scenario.id,
        label: scenario.label,
        via: scenario.via,
        streaming: scenario.streaming,
        requestsPerSecond: median(r.requestsPerSecond),
        roundsRequestsPerSecond: r.requestsPerSecond,
        requests: r.requests,
        failures: r.failures,
        ratioToFloor: null,
        p50Ms: lat.p50Ms,
        p99Ms: lat.p99Ms,
        latencySamples: lat.samples,
        addedP50Ms: null,
        floorAddedP50Ms: null,
        cpuMicrosPerRequest: measured ? r.cpuMicros / Math.max(1, r.requests) : null,
        workerCpuMicrosPerRequest: measured && r.workerMicros !== null ? r.workerMicros / Math.max(1, r.requests) : null,
        cpuToFloor: null,
        cpuPercent: measured ? (r.cpuMicros / r.wallMicros) * 100 : null,
        mockCpuPercent: (r.mockCpuMicros / r.wallMicros) * 100,
        peakRssMB: r.peakRssBytes === null ? null : r.peakRssBytes / 2 ** 20,
      });
    }
    for (const result of results) {
      const scenario = scenarios.find((s) => s.id === result.id)!;
      const floorRun = results.find((r) => r.id === scenario.floor);
      const directRun = results.find((r) => r.id === scenario.direct);
      // Paired by round: a scenario and its floor ran moments apart, so a slow patch of the machine
      // hits both; the median of the per-round ratios keeps one bad round from deciding.
      const own = runs.get(result.id)!;
      const base = floorRun === undefined ? undefined : runs.get(floorRun.id)!;
      if (base !== undefined) {
        result.ratioToFloor = median(own.requestsPerSecond.map((rps, i) => rps / base.requestsPerSecond[i]));
        if (own.cpuPerRequest.length > 0 && base.cpuPerRequest.length > 0) result.cpuToFloor = median(own.cpuPerRequest.map((cpu, i) => cpu / base.cpuPerRequest[i]));
      }
      if (directRun) result.addedP50Ms = result.p50Ms - directRun.p50Ms;
      if (floorRun && directRun) result.floorAddedP50Ms = floorRun.p50Ms - directRun.p50Ms;
    }
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
  }
  try {
    if (options.configs > 0) {
      progress(`compile: ${options.configs} generated configs through gateway compile …`);
      compile = await compileBench(work, options.configs);
    }
    if (options.inline) {
      progress('inline: first sight, respelt and cached lookups …');
      inline = await inlineBench('http://127.0.0.1:9');
    }
    if (options.stages) {
      progress('stages: pipeline CPU per request of the single route, with three checks, with a cache (miss, hit) …');
      stages = await stageBench();
    }
    if (options.semanticEntries > 0) {
      progress(`semantic: filling an index of ${options.semanticEntries} vectors × ${SEMANTIC_DIMENSIONS} dims …`);
      semantic = await semanticBench(options.semanticEntries, SEMANTIC_DIMENSIONS, progress);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }

  const checks = checkTargets(results, compile, inline, semantic, stages);
  const report = [
    '',
    `Machine: ${describeMachine(host)}`,
    `Layout: ${layout}`,
    ...(options.nodeFlags.length > 0 ? [`Node flags (floor and gateway): ${options.nodeFlags.join(' ')}`] : []),
    `Gateway memory tuning (gateway serve's defaults not given above): ${describeTuning(tuning)}`,
    `Runs: ${options.rounds} interleaved round(s) of ${options.connections} connections × ${options.duration}s (req/s: median; × floor: median of per-round ratios) and 1 connection × ${options.latencyDuration}s (latency: all rounds pooled); ${options.warmup}s warm-up first`,
    '',
    scenarioTable(results, options.connections),
    '',
    otherTable(compile, inline, semantic, stages),
    '',
    targetTable(checks),
    '',
    'Virtual key: a config {"virtual_key": id} saved through /v1/configs; the key (vendor credential and',
    'custom_host) is stored through /v1/virtual-keys and resolved from the in-memory key ring per request.',
    '',
  ].join('\n');
  process.stdout.write(report);

  await mkdir(dirname(options.out), { recursive: true });
  const json = {
    generatedBy: 'npm run bench',
    date: new Date().toISOString(),
    machine: host,
    layout,
    options: { duration: options.duration, latencyDuration: options.latencyDuration, warmup: options.warmup, rounds: options.rounds, connections: options.connections, pinned, nodeFlags: options.nodeFlags, gatewayTuning: tuning, loadGenerator: options.loadGenerator },
    scenarios: results,
    compile,
    inline,
    stages,
    semantic,
    targets: checks,
  };
  await writeFile(options.out, `${JSON.stringify(json, null, 2)}\n`);
  progress(`bench: wrote ${options.out}${options.cpuProf ? `; profiles in ${options.cpuProf}` : ''}`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
