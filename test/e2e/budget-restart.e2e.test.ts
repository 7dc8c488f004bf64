// A usage budget counted in the gateway's own memory (no REDIS_URL) survives a restart, on SQLite
// and on PostgreSQL: a group that spent its budget is refused by the next gateway on the same store
// with the provider untouched, and the spend reaches the store within seconds even without a clean
// shutdown. Real servers, the official SDK, a mock provider that counts what it received.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSetup } from '../../runtime/cli/serve.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { type RunningGateway, startGateway } from '../../runtime/server/start.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { until } from '../jobs/harness.ts';
import { BACKENDS, createLocation, type StoreLocation } from '../store/backends.ts';

const ADMIN = 'gw_budget-restart-admin-key-0123456789ab';

describe.each(BACKENDS)('usage budgets across a restart on %s', (backend) => {
  let location: StoreLocation;
  let mock: VendorMock;
  let gateway: RunningGateway | null = null;

  const start = async () => {
    gateway = await startGateway({
      port: 0,
      dataDir: location.dataDir,
      databaseUrl: location.databaseUrl,
      configsDir: join(location.dataDir, 'configs'),
      seedApiKey: ADMIN,
      logger: silentLogger,
     
      storePollMs: 50,
      setup: serveSetup,
    });
    return gateway;
  };

  beforeAll(async () => {
    location = await createLocation(backend);
    mock = await startVendorMock({ label: `budget-restart-${backend}` });
    await mkdir(join(location.dataDir, 'configs'));
    await writeFile(join(location.dataDir, 'configs', 'chat.json'), JSON.stringify({ provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL }));
  });
  afterAll(async () => {
    await gateway?.close();
    await mock?.close();
    await location?.remove();
  });

  function client(url: string, user: string): OpenAI {
    return new OpenAI({ baseURL: `${url}/v1`, apiKey: VENDOR_MOCK_KEY, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'chat', 'x-gateway-metadata': JSON.stringify({ user }) } });
  }

  async function send(sdk: OpenAI): Promise<number> {
    try {
      const { response } = await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello there' }] }).withResponse();
      return response.status;
    } catch (error: any) {
      return error.status;
    }
  }

  async function usage(url: string, id: string): Promise<Array<{ group: Record<string, string>; used: number; exhausted: boolean }>> {
    const res = await fetch(`${url}/v1/policies/usage-limits/${id}/usage`, { headers: { 'x-gateway-api-key': ADMIN } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: Array<{ group: Record<string, string>; used: number; exhausted: boolean }> }).data;
  }

  it('a spent monthly budget stays spent, and one with budget left keeps its count, in the next gateway on the same store', async () => {
    let running = await start();
    const created = await fetch(`${running.url}/v1/policies/usage-limits`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'tokens', credit_limit: 100, periodic_reset: 'monthly', conditions: [{ key: 'metadata.user', value: '*' }], group_by: [{ key: 'metadata.user' }] }),
    });
    expect(created.status).toBe(200);
    const id = ((await created.json()) as { id: string }).id;
    // The routers see the policy within one change-feed interval.
    await new Promise((resolve) => setTimeout(resolve, 200));

    const spender = client(running.url, 'spender');
    let status = 200;
    for (let i = 0; i < 100 && status === 200; i++) status = await send(spender);
    expect(status).toBe(412);
    expect(await send(client(running.url, 'light'))).toBe(200);
    const counted = await usage(running.url, id);
    const light = counted.find((g) => g.group['metadata.user'] === 'light')!;
    expect(light.used).toBeGreaterThan(0);

    // Written within about a second, before any shutdown: a crash would lose little.
    const peek = await location.open();
    try {
      const users = async () => (await peek.usageBudgets.load(Date.now())).map((s) => JSON.parse(s.group)[0] as string).sort();
      await until(users, (found) => found.join() === 'light,spender', 5000, 'the journal write');
    } finally {
      await peek.close();
    }

    await running.close();
    gateway = null;
    running = await start();
    const received = mock.requests.length;
    expect(await send(client(running.url, 'spender'))).toBe(412);
    expect(mock.requests.length).toBe(received);
    const after = await usage(running.url, id);
    expect(after.find((g) => g.group['metadata.user'] === 'spender')).toMatchObject({ exhausted: true });
    expect(after.find((g) => g.group['metadata.user'] === 'light')!.used).toBe(light.used);
    expect(await send(client(running.url, 'light'))).toBe(200);
  });
});
