// `gateway simulate`: the shipped examples simulated from the command line — tries in order with
// their backoff, the answer and headers, repeatable by seed — and every usage mistake a clear exit 2.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSimulate } from '../../runtime/cli/simulate.ts';
import { capturedOutput } from '../support/captured-output.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const example = (name: string) => resolve(ROOT, 'examples/configs', name);
const REQUEST = resolve(ROOT, 'examples/requests/chat.json');

async function simulateCli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { result: code, stdout, stderr } = await capturedOutput(() => runSimulate(argv));
  return { code, stdout, stderr };
}

describe('gateway simulate', () => {
  it('prints each try, the backoff before each retry, the answer and the headers', async () => {
    const run = await simulateCli(example('retry-with-headers.json'), '--request', REQUEST, '--fail', 'config=429:2,503,200');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('1. config  vendor  model gpt-4o  → 429, retry after 2000 ms');
    expect(run.stdout).toMatch(/2\. config {2}vendor {2}model gpt-4o {2}→ 503, retry after \d+ ms/);
    expect(run.stdout).toContain('3. config  vendor  model gpt-4o  → 200, answer');
    expect(run.stdout).toContain('answer: 200 from config (vendor) after 2 retries');
    expect(run.stdout).toContain('x-gateway-retry-attempt-count: 2');
    expect(run.stdout).not.toContain('sk-example');
  });

  it('reads a config and a request file that start with a byte-order mark', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-simulate-bom-'));
    try {
      writeFileSync(join(dir, 'config.json'), `\ufeff${readFileSync(example('retry-with-headers.json'), 'utf8')}`);
      writeFileSync(join(dir, 'request.json'), `\ufeff${readFileSync(REQUEST, 'utf8')}`);
      const run = await simulateCli(join(dir, 'config.json'), '--request', join(dir, 'request.json'), '--fail', 'config=200');
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('answer: 200 from config (vendor)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('follows conditions on --metadata into nested fallbacks, by path or by name', async () => {
    const run = await simulateCli(example('conditional-of-fallbacks.json'), '--request', REQUEST, '--metadata', '{"_environment":"production"}', '--fail', 'config.targets[0].targets[0]=503', '--json');
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.attempts[0]).toMatchObject({ target: 'config.targets[0].targets[0]', then: 'fallback', result: { status: 503 } });
    expect(report.answer.target).toMatch(/^config\.targets\[0\]\.targets\[1\]\.targets\[[01]\]$/);
    const staging = await simulateCli(example('conditional-of-fallbacks.json'), '--request', REQUEST, '--fail', 'staging=unreachable');
    expect(staging.stdout).toContain('config.targets[1]  "staging"  virtual-key:vk-example-staging  model gpt-4o  → 502 provider_unreachable, answer');
  });

  it('makes loadbalance picks from the seed: the same seed, the same run', async () => {
    const picks = async (seed: string) => JSON.parse((await simulateCli(example('loadbalance-keys.json'), '--request', REQUEST, '--seed', seed, '--json')).stdout).answer.target as string;
    const seen = new Set<string>();
    for (let seed = 0; seed < 20; seed++) {
      const first = await picks(String(seed));
      expect(await picks(String(seed))).toBe(first);
      seen.add(first);
    }
    // Weight 0 is never picked; both weighted keys are.
    expect([...seen].sort()).toEqual(['config.targets[0]', 'config.targets[1]']);
  });

  it('exits 2 with a clear line on usage mistakes, and 1 on an invalid config', async () => {
    const typo = await simulateCli(example('conditional-of-fallbacks.json'), '--request', REQUEST, '--fail', 'prd=503');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('did you mean "prod"?');
    const badOutcome = await simulateCli(example('retry-with-headers.json'), '--request', REQUEST, '--fail', 'config=oops');
    expect(badOutcome.code).toBe(2);
    expect(badOutcome.stderr).toContain('is not an outcome');
    expect((await simulateCli(example('retry-with-headers.json'))).code).toBe(2);
    expect((await simulateCli(example('retry-with-headers.json'), '--request', resolve(ROOT, 'nope.json'))).stderr).toContain('cannot read --request');
    expect((await simulateCli(example('retry-with-headers.json'), '--request', REQUEST, '--path', '/v1/models')).code).toBe(2);
    expect((await simulateCli(example('retry-with-headers.json'), '--request', REQUEST, '--seed', '-1')).code).toBe(2);
    const invalid = await simulateCli(resolve(ROOT, 'examples/broken/misspelt-keys.json'), '--request', REQUEST);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('CFG_UNKNOWN_KEY');
    const help = await simulateCli('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: gateway simulate');
  });
});
