// Limits across processes, with real parts only: three `gateway serve` processes on one PostgreSQL
// and one Redis hold one 30-rpm limit at 30 in total, not 90 and not a third each; and a gateway whose Redis dies keeps
// serving (limits counted in the process, the fallback counted in /metrics), never a 5xx.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSetup } from '../../runtime/cli/serve.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { type RunningGateway, startGateway } from '../../runtime/server/start.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { createLocation, type StoreLocation } from '../store/backends.ts';
import { TEST_REDIS_URL } from '../limits/backends.ts';
import { type ServeProcess, startPrivateRedis, startServe, stopServes } from './serve-processes.ts';
import { until } from '../jobs/harness.ts';

const ADMIN_KEY = 'gw_limit-process-admin-key-0123456789abcdefg';

function chatRequest(url: string, mock: VendorMock, metadata: Record<string, string>): Promise<number> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'x-gateway-api-key': ADMIN_KEY, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': mock.baseURL, authorization: `Bearer ${VENDOR_MOCK_KEY}`,
      'content-type': 'application/json', 'x-gateway-metadata': JSON.stringify(metadata),
    },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  }).then(async (res) => {
    await res.arrayBuffer();
    return res.status;
  });
}

async function createPolicy(url: string, body: unknown, kind: 'rate-limits' | 'usage-limits' = 'rate-limits'): Promise<string> {
  const res = await fetch(`${url}/v1/policies/${kind}`, { method: 'POST', headers: { 'x-gateway-api-key': ADMIN_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const created = (await res.json()) as { id: string };
  expect(res.status, JSON.stringify(created)).toBe(200);
  return created.id;
}

describe('limits across processes', () => {
  let mock: VendorMock;
  beforeAll(async () => {
    mock = await startVendorMock({ label: 'limit-processes' });
  });
  afterAll(async () => {
    await mock?.close();
  });

  it('three serve processes on one Redis and one PostgreSQL enforce one 30-rpm limit at 30 in total', { timeout: 120_000 }, async () => {
    const location: StoreLocation = await createLocation('postgres');
    const processes: ServeProcess[] = [];
    try {
      const env = { GATEWAY_API_KEY: ADMIN_KEY, DATABASE_URL: location.databaseUrl!, REDIS_URL: TEST_REDIS_URL, GATEWAY_STORE_POLL_MS: '100', GATEWAY_MEMORY_TUNING: 'off', GATEWAY_REQUEST_LOG: 'off' };
      // The first one migrates the schema; the others start on it.
      processes.push(await startServe(env, location.dataDir));
      processes.push(...(await Promise.all([startServe(env, location.dataDir), startServe(env, location.dataDir)])));
      const run = randomUUID();
      await createPolicy(processes[0].url, { type: 'requests', unit: 'rpm', value: 30, conditions: [{ key: 'metadata.run', value: run }], group_by: [{ key: 'api_key' }] });
      // Every process sees the policy within its change-feed interval (100 ms).
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const send = (p: number, n: number) => Promise.all(Array.from({ length: n }, () => chatRequest(processes[p].url, mock, { run })));
      const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;
      // One process alone takes 20: more than a third of the limit, so the limit is not split by process.
      const first = await send(0, 20);
      expect(count(first, 200)).toBe(20);
      // The other two, 35 each at once, share what is left: 10 in all, not 30 each.
      const rest = (await Promise.all([send(1, 35), send(2, 35)])).flat();
      expect({ ok: count(rest, 200), refused: count(rest, 429) }).toEqual({ ok: 10, refused: 60 });
    } finally {
      await stopServes(...processes);
      await location.remove();
    }
  });

  /** A gateway in this process on `redisUrl`, its data in `dir`. */
  async function gatewayOn(redisUrl: string, dir: string): Promise<RunningGateway> {
    const saved = { REDIS_URL: process.env.REDIS_URL, GATEWAY_REDIS_TIMEOUT_MS: process.env.GATEWAY_REDIS_TIMEOUT_MS };
    process.env.REDIS_URL = redisUrl;
    process.env.GATEWAY_REDIS_TIMEOUT_MS = '100';
    return startGateway({ port: 0, dataDir: dir, seedApiKey: ADMIN_KEY, logger: silentLogger, storePollMs: 50, setup: serveSetup }).finally(() => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });
  }

  it('keeps a usage budget when its Redis restarts empty: the store\'s journal seeds it back', { timeout: 60_000 }, async () => {
    const redis = await startPrivateRedis();
    const dir = await mkdtemp(join(tmpdir(), 'gateway-budget-redis-'));
    const gateway = await gatewayOn(redis.url, dir);
    try {
      const run = randomUUID();
      const id = await createPolicy(gateway.url, { type: 'tokens', credit_limit: 12, periodic_reset: 'monthly', conditions: [{ key: 'metadata.run', value: run }], group_by: [{ key: 'api_key' }] }, 'usage-limits');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const spent: number[] = [];
      while (spent.length < 10 && spent.at(-1) !== 412) {
        spent.push(await chatRequest(gateway.url, mock, { run }));
        // Charged after the answer: let the charge land before the next check.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(spent.at(-1)).toBe(412);
      const used = async () => ((await (await fetch(`${gateway.url}/v1/policies/usage-limits/${id}/usage`, { headers: { 'x-gateway-api-key': ADMIN_KEY } })).json()) as { data?: Array<{ used: number }> }).data?.[0]?.used ?? 0;
      const before = await used();
      expect(before).toBeGreaterThanOrEqual(12);
      // The journal writes each second; then Redis loses everything (a restart without persistence).
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await redis.kill();
      await redis.restart();
      await until(used, (now) => now === before, 10_000, 'the budget seeded back into the new Redis');
      expect(await chatRequest(gateway.url, mock, { run })).toBe(412);
    } finally {
      await gateway.close();
      await redis.kill();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps serving when its Redis dies: limits fall back to the process, counted in /metrics, never a 5xx', { timeout: 60_000 }, async () => {
    const redis = await startPrivateRedis();
    const dir = await mkdtemp(join(tmpdir(), 'gateway-limits-redis-'));
    const gateway = await gatewayOn(redis.url, dir);
    try {
      const run = randomUUID();
      await createPolicy(gateway.url, { type: 'requests', unit: 'rpm', value: 3, conditions: [{ key: 'metadata.run', value: run }], group_by: [{ key: 'api_key' }] });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await chatRequest(gateway.url, mock, { run })).toBe(200);
      expect(await chatRequest(gateway.url, mock, { run })).toBe(200);
      await redis.kill();
      // Redis is gone: the process counts alone, from zero: 3 admitted, then refused; nothing fails.
      const during = [];
      for (let i = 0; i < 5; i++) during.push(await chatRequest(gateway.url, mock, { run }));
      expect(during).toEqual([200, 200, 200, 429, 429]);
      const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
      expect(Number(/^gateway_limit_counter_fallbacks_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(5);
      // Back up (empty): shared counting resumes once the client reconnected.
      await redis.restart();
      // After reconnecting, requests count in Redis again (a fresh, empty one): admitted, no fallback.
      const after: number[] = [];
      const fallbacks = async () => Number(/^gateway_limit_counter_fallbacks_total (\d+)/m.exec(await (await fetch(`${gateway.url}/metrics`)).text())?.[1]);
      const deadline = Date.now() + 10_000;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const seen = await fallbacks();
        after.push(await chatRequest(gateway.url, mock, { run }));
        if ((await fallbacks()) === seen && after.at(-1) === 200) break;
        if (Date.now() > deadline) throw new Error(`limits never went back to Redis: ${after.join(',')}`);
      }
      expect(after.every((s) => s === 200 || s === 429)).toBe(true);
      expect(after.at(-1)).toBe(200);
    } finally {
      await gateway.close();
      await redis.kill();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

