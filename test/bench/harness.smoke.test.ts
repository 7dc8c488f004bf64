// A benchmark is not a test (issue 7): this only proves that `npm run bench` starts its processes,
// loads a scenario, checks the targets and prints, with durations too short to mean anything.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const temp = mkdtempSync(join(tmpdir(), 'gateway-bench-smoke-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

it('the harness starts, loads the single and cache-hit scenarios (with the ceiling run) and prints the table and targets', async () => {
  const out = join(temp, 'result.json');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['bench/run.ts', '--only', 'single,cache-hit', '--rounds', '1', '--duration', '0.2', '--latency-duration', '0.2', '--warmup', '0', '--configs', '5', '--semantic-entries', '500', '--no-pin', '--out', out],
    { cwd: ROOT, timeout: 40_000 },
  );
  expect(stdout).toMatch(/\| direct to mock +\|/);
  expect(stdout).toMatch(/\| floor proxy +\|/);
  expect(stdout).toMatch(/\| single +\|/);
  expect(stdout).toMatch(/\| node:http answering from memory \(ceiling of a HIT\) +\|/);
  expect(stdout).toMatch(/throughput single ≥ 85% of floor/);
  expect(stdout).toMatch(/cache: simple-cache HIT throughput over the floor +\| +[\d.]+× \(ceiling [\d.]+×\)/);
  expect(stdout).toMatch(/compile 1,000 configs/);
  expect(stdout).toMatch(/cached inline config lookup/);
  expect(stdout).toMatch(/semantic lookup, 500 entries × 1536 dims/);
  expect(stdout).toMatch(/of which the search on the index thread \(p50 \/ p99\) *\| *\d+ \/ \d+ µs/);
  expect(stdout).toMatch(/guardrails: gateway CPU three cheap checks on input and output add \(in process\)/);
  expect(stdout).toMatch(/cache: gateway CPU the miss path adds, every answer stored \(in process\)/);
  const result = JSON.parse(readFileSync(out, 'utf8')) as { scenarios: { id: string; requests: number; failures: number }[] };
  expect(result.scenarios.map((s) => s.id)).toEqual(['direct', 'floor', 'single', 'cache-hit', 'responder']);
  for (const scenario of result.scenarios) {
    expect(scenario.requests).toBeGreaterThan(0);
    expect(scenario.failures).toBe(0);
  }
}, 45_000);
