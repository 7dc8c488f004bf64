// `gateway demo`, as the README's quick start runs it: the mock provider and the gateway in one
// command, the request it prints routed through examples/configs/mock.json and logged, and both
// stopped by one SIGTERM. (The ports are free ones here, and mock.json is rewritten to the mock's;
// the command's defaults are the example's 9000 and 8787.)
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../e2e/serve-processes.ts';
import { until } from '../jobs/harness.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/gateway.js');

describe('gateway demo', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gateway-demo-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the example configs beside the mock, prints a request that routes, and stops both on SIGTERM', async () => {
    const [port, mockPort] = [await freePort(), await freePort()];
    const shipped = JSON.parse(await readFile(join(ROOT, 'examples/configs/mock.json'), 'utf8')) as { custom_host: string };
    await mkdir(join(dir, 'configs'));
    await writeFile(join(dir, 'configs', 'mock.json'), JSON.stringify({ ...shipped, custom_host: `http://127.0.0.1:${mockPort}/v1` }));
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.GATEWAY_API_KEY;
    const child = spawn(process.execPath, [BIN, 'demo', '--port', String(port), '--mock-port', String(mockPort), '--configs', join(dir, 'configs'), '--data', join(dir, 'data')], { env });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      await until(async () => out, (text) => text.includes('gateway listening on'), 20_000);
      const gateway = `http://127.0.0.1:${port}`;
      expect(out).toContain(`mock provider listening on http://127.0.0.1:${mockPort}/v1`);
      expect(out).toContain(`gateway listening on ${gateway}\n`);
      // The request it prints, as a newcomer pastes it: the seeded key, the example config.
      expect(out).toContain(`curl ${gateway}/v1/chat/completions -H 'x-gateway-api-key: dev-key' -H 'x-gateway-config: mock'`);
      const headers = { 'x-gateway-api-key': 'dev-key', 'x-gateway-config': 'mock', authorization: 'Bearer any-key', 'content-type': 'application/json' };
      const res = await fetch(`${gateway}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content: 'Hello' }] }) });
      expect(res.status).toBe(200);
      const traceId = res.headers.get('x-gateway-trace-id')!;
      expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe('[mock] Hello');
      const logged = await until(
        async () => (await (await fetch(`${gateway}/v1/logs?trace_id=${traceId}`, { headers: { 'x-gateway-api-key': 'dev-key' } })).json()) as { data: Array<{ status: number; provider: string }> },
        (page) => page.data.length === 1,
      );
      expect(logged.data[0]).toMatchObject({ status: 200, provider: 'vendor' });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, err).toBe(0);
    // The mock went with it.
    await expect(fetch(`http://127.0.0.1:${mockPort}/v1/models`)).rejects.toThrow();
  });

  it('seeds a GATEWAY_API_KEY of the user\'s own and names the variable in the request it prints, never the key', async () => {
    const [port, mockPort] = [await freePort(), await freePort()];
    const own = 'gw_demo-own-key-0123456789abcdef';
    const child = spawn(process.execPath, [BIN, 'demo', '--port', String(port), '--mock-port', String(mockPort), '--configs', join(ROOT, 'examples/configs'), '--data', join(dir, 'own')], { env: { ...process.env, GATEWAY_API_KEY: own } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      await until(async () => out, (text) => text.includes('gateway listening on'), 20_000);
      expect(out).toContain(`-H "x-gateway-api-key: $GATEWAY_API_KEY"`);
      expect(out).not.toContain(own);
      expect(out).not.toContain('dev-key');
      const res = await fetch(`http://127.0.0.1:${port}/v1/logs?limit=1`, { headers: { 'x-gateway-api-key': own } });
      expect(res.status).toBe(200);
      const refused = await fetch(`http://127.0.0.1:${port}/v1/logs?limit=1`, { headers: { 'x-gateway-api-key': 'dev-key' } });
      expect(refused.status).toBe(401);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('says how to reach the mock when the configs folder has no mock.json', async () => {
    const [port, mockPort] = [await freePort(), await freePort()];
    await mkdir(join(dir, 'other'));
    await writeFile(join(dir, 'other', 'plain.json'), JSON.stringify({ provider: 'vendor', custom_host: `http://127.0.0.1:${mockPort}/v1` }));
    const child = spawn(process.execPath, [BIN, 'demo', '--port', String(port), '--mock-port', String(mockPort), '--configs', join(dir, 'other'), '--data', join(dir, 'other-data')]);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      await until(async () => out, (text) => text.includes('gateway listening on'), 20_000);
      expect(out).toContain(`demo: ${join(dir, 'other')} has no mock.json; name one of its configs in x-gateway-config, or add one: {"provider": "vendor", "custom_host": "http://127.0.0.1:${mockPort}/v1"}`);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('says so when the mock provider\'s port is taken, and starts nothing', async () => {
    const { createServer } = await import('node:net');
    const holder = createServer();
    await new Promise<void>((ready) => holder.listen(0, '127.0.0.1', ready));
    const taken = (holder.address() as { port: number }).port;
    try {
      const run = await new Promise<{ code: number | null; stderr: string }>((done) => {
        const child = spawn(process.execPath, [BIN, 'demo', '--port', '0', '--mock-port', String(taken), '--configs', join(ROOT, 'examples/configs'), '--data', join(dir, 'taken')]);
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('exit', (code) => done({ code, stderr }));
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`gateway demo: the mock provider cannot listen on 127.0.0.1:${taken}: the port is in use`);
    } finally {
      holder.close();
    }
  });
});
