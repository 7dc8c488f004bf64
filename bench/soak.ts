// `npm run soak -- --minutes N`: steady load through a fallback config (first target answers 503,
// the second answers) on a real `gateway serve`, sampling its RSS and event-loop delay, then a
// verdict: flat (memory settles, the loop stays responsive) or not, with the numbers.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pendingTuning } from '../bin/memory-tuning.js';
import { throughput } from './load.ts';
import { startProcess } from './processes.ts';
import { rssSlopePerMinute } from './rss-slope.ts';
import { GATEWAY_KEY, savedConfigs } from './scenarios.ts';
import { wrkAvailable } from './wrk.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..');
const SAMPLE_SECONDS = 10;
/** RSS may grow this much from the first half of the run to its end and still be flat. */
const RSS_GROWTH_MAX = 0.1;
/**
 * RSS may rise at most this fast over the second half (least-squares slope, MB per minute). The end
 * against mid-run alone let a writer thread's statement cache pass as flat at +7.9% while it still
 * grew ~5 MB a minute; a process that has settled moves well under 1.
 */
const RSS_SLOPE_MAX_MB_PER_MINUTE = 2;
/** The event loop's p99 delay above this means the gateway stalled. */
const LAG_P99_MAX_MS = 100;

const USAGE = `Usage: npm run soak -- [--minutes N] [--connections N]

Runs a mock upstream and \`gateway serve\` with a fallback config whose first target answers 503,
loads it steadily (wrk when installed, else autocannon) and samples the gateway's RSS and event-loop
delay every ${SAMPLE_SECONDS} s. Prints the samples and a verdict: "flat" when RSS at the end is within
${RSS_GROWTH_MAX * 100}% of its level after the first half, RSS over the second half rose no faster than
${RSS_SLOPE_MAX_MB_PER_MINUTE} MB a minute (least-squares slope), and the event loop's p99 delay stayed under
${LAG_P99_MAX_MS} ms; exits 1 otherwise.

Options:
  --minutes N       how long to load (default 5)
  --connections N   concurrent connections (default 32)
  -h, --help        show this help`;

interface Sample {
  seconds: number;
  rssMB: number;
  lagP99Ms: number;
  requestsPerSecond: number;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { minutes: { type: 'string', default: '5' }, connections: { type: 'string', default: '32' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const minutes = Number(values.minutes);
  const connections = Number(values.connections);
  if (!(minutes > 0) || !(connections >= 1)) {
    process.stderr.write(`soak: --minutes and --connections must be positive numbers\n\n${USAGE}\n`);
    return 2;
  }
  const work = await mkdtemp(join(tmpdir(), 'gateway-soak-'));
  const processes = [];
  try {
    const mock = await startProcess('mock', join(HERE, 'mock-upstream.ts'));
    processes.push(mock);
    const configs = join(work, 'configs');
    await mkdir(configs);
    for (const [id, config] of Object.entries(savedConfigs(mock.url))) await writeFile(join(configs, `${id}.json`), JSON.stringify(config));
    const tuning = pendingTuning([], process.env) ?? { flags: [], env: {} };
    const gateway = await startProcess('gateway', join(ROOT, 'bin', 'gateway.js'), {
      args: ['serve', '--port', '0', '--configs', configs, '--data', join(work, 'data')],
      env: { GATEWAY_API_KEY: GATEWAY_KEY, ...tuning.env },
      nodeFlags: tuning.flags,
    });
    processes.push(gateway);
    const target = {
      url: gateway.url, method: 'POST' as const, path: '/v1/chat/completions',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'bench-fallback-503' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] }),
    };
    const generator = wrkAvailable() ? ({ kind: 'wrk', cpus: null } as const) : ({ kind: 'autocannon' } as const);
    process.stderr.write(`soak: ${minutes} min at ${connections} connections through a fallback (first target 503), load by ${generator.kind}\n`);
    const samples: Sample[] = [];
    const rounds = Math.max(1, Math.round((minutes * 60) / SAMPLE_SECONDS));
    for (let round = 1; round <= rounds; round++) {
      const load = await throughput(target, connections, SAMPLE_SECONDS, generator);
      const stats = await gateway.stats();
      const lag = await lagP99Ms(gateway.url);
      const sample = { seconds: round * SAMPLE_SECONDS, rssMB: stats.rssBytes / 2 ** 20, lagP99Ms: lag, requestsPerSecond: load.requestsPerSecond };
      samples.push(sample);
      process.stderr.write(`soak: ${String(sample.seconds).padStart(5)} s  ${sample.requestsPerSecond.toFixed(0).padStart(6)} req/s  RSS ${sample.rssMB.toFixed(1)} MB  loop p99 ${sample.lagP99Ms.toFixed(1)} ms  failures ${load.failures}\n`);
    }
    const secondHalf = samples.slice(Math.floor((samples.length - 1) / 2));
    const half = secondHalf[0];
    const last = samples[samples.length - 1];
    const growth = (last.rssMB - half.rssMB) / half.rssMB;
    const slope = rssSlopePerMinute(secondHalf);
    const worstLag = Math.max(...samples.map((s) => s.lagP99Ms));
    const flat = growth <= RSS_GROWTH_MAX && slope <= RSS_SLOPE_MAX_MB_PER_MINUTE && worstLag <= LAG_P99_MAX_MS;
    process.stdout.write(
      `${flat ? 'flat' : 'NOT flat'}: RSS ${half.rssMB.toFixed(1)} MB at mid-run → ${last.rssMB.toFixed(1)} MB at the end (${(growth * 100).toFixed(1)}%, limit ${RSS_GROWTH_MAX * 100}%), ` +
        `rising ${slope.toFixed(2)} MB/min over the second half (limit ${RSS_SLOPE_MAX_MB_PER_MINUTE}); worst event-loop p99 ${worstLag.toFixed(1)} ms (limit ${LAG_P99_MAX_MS} ms)\n`,
    );
    return flat ? 0 : 1;
  } finally {
    for (const proc of processes.reverse()) await proc.stop();
    await rm(work, { recursive: true, force: true });
  }
}

/** The gateway's own event-loop p99 delay, from its /metrics (prom-client's default gauge). */
async function lagP99Ms(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = /^gateway_nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text);
  return line === null ? Number.NaN : Number(line[1]) * 1000;
}

process.exitCode = await main();
