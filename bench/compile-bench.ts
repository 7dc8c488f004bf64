// Compile time for N generated saved configs, through the real `gateway compile` (a child process:
// read, check, plan, emit, write plan and router files), then the same stages in this process for a
// per-config breakdown. Configs are generated from a seeded PRNG, so every run compiles the same set.
import { execFile } from 'node:child_process';
import { seededRandom } from '../runtime/simulate/seeded-random.ts';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { emitRouterModule } from '../compiler/config/emit.ts';
import { checkConfigSource } from '../compiler/config/index.ts';
import { percentile } from './load.ts';

const GATEWAY_BIN = fileURLToPath(new URL('../bin/gateway.js', import.meta.url));
const run = promisify(execFile);

export interface CompileResult {
  configs: number;
  /** Wall time of `gateway compile --configs DIR --out DIR`, process start included. */
  cliSeconds: number;
  /** In process, per config: checkConfigSource (parse, schema, semantics, plan) and emit. */
  checkPlanMicrosP50: number;
  emitMicrosP50: number;
  totalMicrosP50: number;
  totalMicrosP99: number;
  /** Sum over all configs, in process. */
  inProcessSeconds: number;
}

export async function compileBench(dir: string, count: number): Promise<CompileResult> {
  const configsDir = join(dir, 'compile-configs');
  const outDir = join(dir, 'compile-out');
  await rm(configsDir, { recursive: true, force: true });
  await mkdir(configsDir, { recursive: true });
  const random = mulberry32(0x6a7e);
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const file = `generated-${String(i).padStart(4, '0')}.json`;
    await writeFile(join(configsDir, file), `${JSON.stringify(generateConfig(random, i), null, 2)}\n`);
    files.push(file);
  }

  const started = performance.now();
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, [GATEWAY_BIN, 'compile', '--json', '--configs', configsDir, '--out', outDir], { maxBuffer: 64 * 1024 * 1024 }));
  } catch (error) {
    // Exit status 1 (some config invalid) still prints the JSON report, which says which.
    stdout = (error as { stdout?: string }).stdout ?? '';
    if (!stdout.startsWith('{')) throw error;
  }
  const cliSeconds = (performance.now() - started) / 1000;
  const report = JSON.parse(stdout) as { configs: { id: string; ok: boolean; errors: unknown[] }[] };
  const bad = report.configs.filter((c) => !c.ok);
  if (report.configs.length !== count || bad.length > 0) {
    throw new Error(`gateway compile rejected ${bad.length} generated config(s), e.g. ${JSON.stringify(bad[0])}`);
  }

  const checkPlan: number[] = [];
  const emit: number[] = [];
  const total: number[] = [];
  for (const file of files) {
    const source = await readFile(join(configsDir, file), 'utf8');
    const t0 = performance.now();
    const result = checkConfigSource(source, file.slice(0, -5));
    const t1 = performance.now();
    if (!result.ok) throw new Error(`${file} did not compile in process`);
    emitRouterModule(result.plan, file);
    const t2 = performance.now();
    checkPlan.push((t1 - t0) * 1000);
    emit.push((t2 - t1) * 1000);
    total.push((t2 - t0) * 1000);
  }
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  return {
    configs: count,
    cliSeconds,
    checkPlanMicrosP50: percentile(sorted(checkPlan), 50),
    emitMicrosP50: percentile(sorted(emit), 50),
    totalMicrosP50: percentile(sorted(total), 50),
    totalMicrosP99: percentile(sorted(total), 99),
    inProcessSeconds: total.reduce((a, b) => a + b, 0) / 1e6,
  };
}

type Random = () => number;

/** Small, fast, seedable PRNG. */
export const mulberry32: (seed: number) => Random = seededRandom;

const int = (random: Random, min: number, max: number) => min + Math.floor(random() * (max - min + 1));
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)];

/** A valid config of realistic size: strategies nested up to three deep, with the common feature blocks. */
export function generateConfig(random: Random, index: number): Record<string, unknown> {
  return node(random, index, 0);
}

function node(random: Random, index: number, depth: number): Record<string, unknown> {
  const roll = random();
  if (depth >= 2 || roll < 0.3) return leaf(random, index, depth);
  const mode = pick(random, ['fallback', 'loadbalance', 'conditional'] as const);
  const count = int(random, 2, 4);
  const targets = Array.from({ length: count }, (_, i) => ({ name: `t${i}`, ...node(random, index, depth + 1) }));
  const config: Record<string, unknown> = { strategy: { mode }, targets };
  if (mode === 'fallback' && random() < 0.5) (config.strategy as Record<string, unknown>).on_status_codes = [429, 500, 502, 503];
  if (mode === 'loadbalance') targets.forEach((t) => Object.assign(t, { weight: int(random, 1, 5) }));
  if (mode === 'conditional') {
    const conditions = [
      { query: { 'metadata.tier': { $in: ['pro', 'enterprise'] } }, then: 't0' },
      { query: { $or: [{ 'params.model': { $regex: `^model-${index}-` } }, { 'metadata._environment': 'dev' }] }, then: 't1' },
      { query: { $and: [{ 'params.max_tokens': { $gte: int(random, 100, 4000) } }, { 'url.pathname': { $ne: '/v1/embeddings' } }] }, then: `t${count - 1}` },
    ];
    Object.assign(config.strategy as Record<string, unknown>, { conditions: conditions.slice(0, int(random, 1, 3)), default: `t${count - 1}` });
  }
  if (random() < 0.4) config.retry = { attempts: int(random, 1, 5), on_status_codes: [429, 503] };
  if (random() < 0.3) config.cb_config = { failure_threshold: int(random, 2, 10), cooldown_interval: int(random, 30, 300) * 1000 };
  if (random() < 0.3) config.override_params = { temperature: Math.round(random() * 100) / 100 };
  return config;
}

function leaf(random: Random, index: number, depth: number): Record<string, unknown> {
  const config: Record<string, unknown> = { provider: 'vendor', api_key: `sk-gen-${index}-${depth}-${int(random, 0, 1e6)}` };
  if (random() < 0.5) config.custom_host = `http://127.0.0.1:${int(random, 1024, 65535)}/v1`;
  if (random() < 0.3) config.request_timeout = int(random, 1, 120) * 1000;
  if (random() < 0.3) config.retry = { attempts: int(random, 0, 5) };
  if (random() < 0.2) config.override_params = { model: pick(random, ['gpt-4o', 'gpt-4o-mini', 'o3-mini']), max_tokens: int(random, 16, 4096) };
  if (random() < 0.2) config.forward_headers = ['x-request-source'];
  return config;
}
