// Two real `gateway serve` processes on one store (PostgreSQL, and one SQLite file) and no Redis hold
// one usage budget within about a second of each other: what one spent reaches the other through
// the store's totals, which each process's journal write returns for the groups it charges.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../jobs/harness.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { BACKENDS, createLocation, type StoreLocation } from '../store/backends.ts';
import { type ServeProcess, startServe } from './serve-processes.ts';

const ADMIN = 'gw_budget-processes-admin-key-0123456789ab';
const BUDGET = 1000;

describe.each(BACKENDS)('one usage budget across two gateway processes on one %s store', (backend) => {
  let location: StoreLocation;
  let configs: string;
  let mock: VendorMock;
  const running: ServeProcess[] = [];

  beforeAll(async () => {
    location = await createLocation(backend);
    mock = await startVendorMock({ label: `budget-processes-${backend}` });
    configs = await mkdtemp(join(tmpdir(), 'budget-processes-'));
    await writeFile(join(configs, 'chat.json'), JSON.stringify({ provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL }));
  });
  afterAll(async () => {
    for (const serve of running) {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
    await mock?.close();
    await location?.remove();
    await rm(configs, { recursive: true, force: true });
  });

  async function send(url: string): Promise<number> {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'chat', 'x-gateway-metadata': '{"team":"shared"}', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello there' }] }),
    });
    await res.arrayBuffer();
    return res.status;
  }

  async function usage(url: string, id: string): Promise<{ used: number; exhausted: boolean } | undefined> {
    const res = await fetch(`${url}/v1/policies/usage-limits/${id}/usage`, { headers: { 'x-gateway-api-key': ADMIN } });
    return ((await res.json()) as { data: Array<{ used: number; exhausted: boolean }> }).data[0];
  }

  it('a budget one process spent is refused by the other once the other charged it and wrote its charge (within a second)', { timeout: 60_000 }, async () => {
    const env = { GATEWAY_API_KEY: ADMIN, DATABASE_URL: location.databaseUrl ?? '', GATEWAY_STORE_POLL_MS: '50', GATEWAY_MEMORY_TUNING: 'off', REDIS_URL: '' };
    const a = await startServe(env, location.dataDir, ['--configs', configs]);
    running.push(a);
    const b = await startServe(env, location.dataDir, ['--configs', configs]);
    running.push(b);
    const created = await fetch(`${a.url}/v1/policies/usage-limits`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'tokens', credit_limit: BUDGET, conditions: [{ key: 'metadata.team', value: 'shared' }], group_by: [{ key: 'metadata.team' }] }),
    });
    expect(created.status).toBe(200);
    const id = ((await created.json()) as { id: string }).id;
    // Both routers see the policy after their next change-feed poll.
    await until(async () => (await fetch(`${b.url}/v1/policies/usage-limits/${id}`, { headers: { 'x-gateway-api-key': ADMIN } })).status, (s) => s === 200, 5000, 'the policy in b');
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Spent through a.
    let status = 200;
    let spent = 0;
    for (; spent < 500 && status === 200; spent++) status = await send(a.url);
    expect(status).toBe(412);
    expect(spent).toBeGreaterThan(2);

    // a writes what it charged within a second. b has not charged the group yet, so it still counts
    // from its start: one request goes through.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await send(b.url)).toBe(200);
    const own = await usage(b.url, id);
    expect(own!.used).toBeLessThan(BUDGET);
    // Its next journal write returns the store's total, everything a spent included.
    await until(() => usage(b.url, id), (u) => u?.exhausted === true, 5000, "a's spend in b");
    const received = mock.requests.length;
    expect(await send(b.url)).toBe(412);
    expect(mock.requests.length).toBe(received);
  });
});
