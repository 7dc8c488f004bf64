// Durability with real processes: two `gateway serve` processes (bin/gateway.js) on one PostgreSQL
// schema, and on one SQLite file, writing at once lose nothing; a write through one is served by the
// other after its next change-feed poll; and everything survives a restart.
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type ApiClient } from '../api/harness.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { BACKENDS, createLocation, type StoreLocation } from '../store/backends.ts';

const BIN = fileURLToPath(new URL('../../bin/gateway.js', import.meta.url));
const NODE = process.execPath;
const ADMIN_KEY = 'gw_two-process-admin-key-0123456789abcdefghij';
const WRITES_PER_PROCESS = 12;

interface Served extends ApiClient {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stderr(): string;
  stop(): Promise<number | null>;
}

function serve(location: StoreLocation): Promise<Served> {
  const env = { ...process.env, GATEWAY_API_KEY: ADMIN_KEY, DATABASE_URL: location.databaseUrl ?? '', GATEWAY_STORE_POLL_MS: '50' };
  const child = spawn(NODE, [BIN, 'serve', '--port', '0', '--data', location.dataDir], { env });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const line = /gateway listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
      if (line === null) return;
      resolve({
        ...apiClient(line[1], ADMIN_KEY),
        child,
        url: line[1],
        stderr: () => stderr,
        stop() {
          child.kill('SIGTERM');
          return exited;
        },
      });
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code} before it was ready: ${stderr}`)));
  });
}

describe.each(BACKENDS)('two gateway processes on one %s store', (backend) => {
  let location: StoreLocation;
  let mock: VendorMock;
  let a: Served;
  let b: Served;
  const running: Served[] = [];

  beforeAll(async () => {
    location = await createLocation(backend);
    mock = await startVendorMock({ label: 'mock' });
    // Started together on a fresh store: both migrate and seed the same admin key at once.
    [a, b] = await Promise.all([serve(location), serve(location)]);
    running.push(a, b);
  });

  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop()));
    await mock?.close();
    await location?.remove();
  });

  it('loses no write when both processes write at once', async () => {
    // The policies match only metadata no later request sends: they are stored, never in the way.
    expect((await a.call('POST', '/v1/prompts', { body: { id: 'shared', name: 'shared', messages: [{ role: 'user', content: 'v1' }] } })).status).toBe(200);
    const writes: Array<Promise<{ status: number }>> = [];
    for (let i = 0; i < WRITES_PER_PROCESS; i++) {
      for (const [label, server] of [['a', a], ['b', b]] as const) {
        writes.push(server.call('PUT', '/v1/prompts/shared', { body: { messages: [{ role: 'user', content: `${label}${i}` }] } }));
        writes.push(server.call('POST', '/v1/configs', { body: { id: `cfg-${label}-${i}`, config: { retry: { attempts: 1 } } } }));
        writes.push(server.call('POST', '/v1/policies/rate-limits', { body: { conditions: [{ key: 'metadata.k', value: `${label}${i}` }], type: 'requests', unit: 'rpm', value: i, name: `${label}${i}` } }));
        writes.push(server.call('POST', '/v1/policies/usage-limits', { body: { conditions: [{ key: 'metadata.k', value: `${label}${i}` }], group_by: [{ key: 'metadata.k' }], type: 'cost', credit_limit: i } }));
        writes.push(server.call('POST', '/v1/api-keys', { body: { name: `${label}${i}` } }));
      }
    }
    const results = await Promise.all(writes);
    expect(results.filter((r) => r.status !== 200)).toEqual([]);

    const total = WRITES_PER_PROCESS * 2;
    for (const server of [a, b]) {
      const versions = (await server.call('GET', '/v1/prompts/shared/versions')).body;
      expect(versions.data.map((v: { version: number }) => v.version)).toEqual(Array.from({ length: total + 1 }, (_, i) => i + 1));
      expect(new Set(versions.data.map((v: { messages: Array<{ content: string }> }) => v.messages[0].content)).size).toBe(total + 1);
      expect((await server.call('GET', '/v1/configs')).body.total).toBe(total);
      expect((await server.call('GET', '/v1/policies/rate-limits')).body.total).toBe(total);
      expect((await server.call('GET', '/v1/policies/usage-limits')).body.total).toBe(total);
      expect((await server.call('GET', '/v1/api-keys')).body.total).toBe(total + 1);
    }
  });

  it('serves what the other process wrote after its next poll: configs, prompts, keys and revocations', async () => {
    const target = { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL };
    await a.call('POST', '/v1/configs', { body: { id: 'cross', config: { ...target, override_params: { model: 'first' } } } });
    const ask = (server: Served, headers: Record<string, string> = {}) =>
      server.call('POST', '/v1/chat/completions', { headers: { 'x-gateway-config': 'cross', ...headers }, body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] } });
    await expect.poll(async () => (await ask(b)).body.model, { timeout: 5000, interval: 25 }).toBe('first');
    await a.call('PUT', '/v1/configs/cross', { body: { config: { ...target, override_params: { model: 'second' }, prompt_id: 'shared' } } });
    await expect.poll(async () => (await ask(b)).body.model, { timeout: 5000, interval: 25 }).toBe('second');
    // The prompt's latest version (written by either process) is rendered by b from its own memory.
    const latest = (await a.call('GET', '/v1/prompts/shared')).body.messages[0].content;
    expect((mock.requests.at(-1)!.json as { messages: Array<{ content: string }> }).messages[0].content).toBe(latest);

    const { body: key } = await b.call('POST', '/v1/api-keys', { body: { scope: 'admin', name: 'cross' } });
    await expect.poll(async () => (await a.call('GET', '/v1/api-keys', { key: key.key })).status, { timeout: 5000, interval: 25 }).toBe(200);
    await a.call('DELETE', `/v1/api-keys/${key.id}`);
    await expect.poll(async () => (await b.call('GET', '/v1/api-keys', { key: key.key })).status, { timeout: 5000, interval: 25 }).toBe(401);

    await b.call('DELETE', '/v1/configs/cross');
    await expect.poll(async () => (await ask(a)).body.error?.code, { timeout: 5000, interval: 25 }).toBe('unknown_config_id');
  });

  it('`gateway keys` writes to the same store (DATABASE_URL or --data), and both servers follow', async () => {
    const keys = (...args: string[]) => {
      const result = spawnSync(NODE, [BIN, 'keys', ...args, '--json', '--data', location.dataDir], {
        encoding: 'utf8',
        env: { ...process.env, DATABASE_URL: location.databaseUrl ?? '' },
        timeout: 20_000,
      });
      expect(result.status, result.stderr).toBe(0);
      return JSON.parse(result.stdout);
    };
    const created = keys('create', '--scope', 'admin', '--name', 'from-cli');
    for (const server of [a, b]) {
      await expect.poll(async () => (await server.call('GET', `/v1/api-keys/${created.id}`, { key: created.key })).status, { timeout: 5000, interval: 25 }).toBe(200);
    }
    expect(keys('list').map((k: { id: string }) => k.id)).toContain(created.id);
    expect(keys('revoke', created.id).revokedAt).not.toBeNull();
    for (const server of [a, b]) {
      await expect.poll(async () => (await server.call('GET', '/v1/api-keys', { key: created.key })).status, { timeout: 5000, interval: 25 }).toBe(401);
    }
  });

  it('keeps every record across a restart of both processes, and logs no secret', async () => {
    const before = {
      configs: (await a.call('GET', '/v1/configs')).body,
      prompts: (await a.call('GET', '/v1/prompts')).body,
      rateLimits: (await a.call('GET', '/v1/policies/rate-limits')).body,
      usageLimits: (await a.call('GET', '/v1/policies/usage-limits')).body,
      keys: (await a.call('GET', '/v1/api-keys')).body,
    };
    expect(await Promise.all(running.splice(0).map((s) => s.stop()))).toEqual([0, 0]);
    for (const server of [a, b]) expect(server.stderr()).not.toContain(ADMIN_KEY);

    const again = await serve(location);
    running.push(again);
    expect((await again.call('GET', '/v1/configs')).body).toEqual(before.configs);
    expect((await again.call('GET', '/v1/prompts')).body).toEqual(before.prompts);
    expect((await again.call('GET', '/v1/policies/rate-limits')).body).toEqual(before.rateLimits);
    expect((await again.call('GET', '/v1/policies/usage-limits')).body).toEqual(before.usageLimits);
    expect((await again.call('GET', '/v1/api-keys')).body).toEqual(before.keys);
    const routed = await again.call('POST', '/v1/chat/completions', { headers: { 'x-gateway-config': 'cfg-b-3' }, body: { model: 'm', messages: [{ role: 'user', content: 'x' }] } });
    // cfg-b-3 is `{retry}` only: it routes, and without a provider the request is refused the documented way.
    expect(routed.body.error.code).toBe('missing_provider');
  });
});
