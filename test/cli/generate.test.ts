// `gateway generate client --out DIR` writes exactly the committed generated/client/ files, and the
// copy works on its own from another folder (it imports nothing outside itself).
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runGenerate } from '../../compiler/cli/generate.ts';
import { capturedOutput } from '../support/captured-output.ts';

const ROOT = resolve(import.meta.dirname, '../..');
let dir: string | undefined;
afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('gateway generate client', () => {
  it('writes the client files, the same as generated/client/, and the copy runs from its folder', async () => {
    dir = await mkdtemp(join(tmpdir(), 'gateway-generate-'));
    const run = await capturedOutput(() => runGenerate(['client', '--out', dir!]), ROOT);
    expect(run.result, run.stderr).toBe(0);
    expect(run.stdout).toContain('wrote 5 files');
    const written = (await readdir(dir)).sort();
    expect(written).toEqual((await readdir(join(ROOT, 'generated/client'))).sort());
    for (const file of written) expect(await readFile(join(dir, file), 'utf8'), file).toBe(await readFile(join(ROOT, 'generated/client', file), 'utf8'));
    const copy = (await import(pathToFileURL(join(dir, 'client.ts')).href)) as typeof import('../../generated/client/client.ts');
    expect(copy.gatewayHeaders({ traceId: 't' })).toEqual({ 'x-gateway-trace-id': 't' });
    expect(typeof new copy.GatewayClient({ baseURL: 'http://x' }).policies.rateLimits.usage).toBe('function');
  }, 60_000);

  it('says what it needs', async () => {
    const usage = await capturedOutput(() => runGenerate(['--out', 'x']), ROOT);
    expect(usage.result).toBe(2);
    expect(usage.stderr).toContain('gateway generate client --out DIR');
    expect((await capturedOutput(() => runGenerate(['--help']), ROOT)).result).toBe(0);
  });
});
