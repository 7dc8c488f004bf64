// GATEWAY_LIMIT_MAX_GROUPS end to end on the gateway `serve` builds, counting in memory and in Redis:
// a policy grouped by a value the client chooses keeps at most that many groups, and a request of a
// new group past it is 429 limit_groups_full without reaching the provider, while the groups it
// keeps are served as before; rate windows a day long and budgets kept for ever, which no sweep would
// free, included. The counters' bound is in test/limits/counters.conformance.test.ts (both backends)
// and a property in test/limits/memory-counters.test.ts.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSetup } from '../../runtime/cli/serve.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { type RunningGateway, startGateway } from '../../runtime/server/start.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { until } from '../jobs/harness.ts';
import { TEST_REDIS_URL } from './backends.ts';

const ADMIN = 'gw_limit-groups-admin-key-0123456789abcdef';
let gateway: RunningGateway;
let mock: VendorMock;
let dir: string;

/** Starts serve with these settings in the environment (restored after). */
async function start(env: Record<string, string>, data: string): Promise<RunningGateway> {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  try {
    return await startGateway({ port: 0, dataDir: join(dir, data), configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger: silentLogger, storePollMs: 50, setup: serveSetup });
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

beforeAll(async () => {
  mock = await startVendorMock({ label: 'limit-groups' });
  dir = await mkdtemp(join(tmpdir(), 'gateway-limit-groups-'));
  await mkdir(join(dir, 'configs'));
  await writeFile(join(dir, 'configs', 'chat.json'), JSON.stringify({ provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL }));
});
afterAll(async () => {
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gateway.url}${path}`, { method, headers: { 'x-gateway-api-key': ADMIN, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function policy(kind: 'rate-limits' | 'usage-limits', body: Record<string, unknown>): Promise<string> {
  const created = await call('POST', `/v1/policies/${kind}`, body);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  // The routers see it within one change-feed interval.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return created.body.id as string;
}

function chat(test: string, user: string): Promise<{ status: number; body: any }> {
  return call('POST', '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, {
    'x-gateway-config': 'chat',
    'x-gateway-metadata': JSON.stringify({ test, _user: user }),
  });
}

describe.each(['memory', 'redis'] as const)('counting in %s', (counting) => {
  beforeAll(async () => {
    gateway = await start({ GATEWAY_LIMIT_MAX_GROUPS: '2', ...(counting === 'redis' ? { REDIS_URL: TEST_REDIS_URL } : {}) }, `data-${counting}`);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.each([
    ['a rate-limits policy with a day-long window', 'rate-limits', { type: 'requests', unit: 'rpd', value: 1000 }],
    ['a usage-limits policy without a reset', 'usage-limits', { type: 'tokens', credit_limit: 1_000_000 }],
  ] as const)('%s keeps 2 groups: a third user is refused with 429 limit_groups_full, unsent; the first two are still served', async (_, kind, fields) => {
    const test = `groups-${kind}-${counting}`;
    const id = await policy(kind, { ...fields, conditions: [{ key: 'metadata.test', value: test }], group_by: [{ key: 'metadata._user' }] });
    expect((await chat(test, 'ada')).status).toBe(200);
    expect((await chat(test, 'bob')).status).toBe(200);
    // A budget's group is kept once its answer is charged, which follows the answer.
    const counted = async () => (await fetch(`${gateway.url}/v1/policies/${kind}/${id}/usage`, { headers: { 'x-gateway-api-key': ADMIN } }).then((r) => r.json() as Promise<{ total: number }>)).total;
    await until(counted, (total) => total === 2, 3000, 'both groups counted');
    const before = mock.requests.length;
    const third = await chat(test, 'cy');
    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({ code: 'limit_groups_full', type: 'rate_limit_error' });
    expect(third.body.error.message).toContain('GATEWAY_LIMIT_MAX_GROUPS');
    expect(mock.requests.length).toBe(before);
    expect((await chat(test, 'ada')).status).toBe(200);
    expect((await chat(test, 'bob')).status).toBe(200);
    // Another policy keeps its own groups.
    expect((await chat(`${test}-other`, 'cy')).status).toBe(200);
  });
});

it('refuses a setting that is not a whole number of groups at start', async () => {
  await expect(start({ GATEWAY_LIMIT_MAX_GROUPS: '-1' }, 'data-bad')).rejects.toThrow('GATEWAY_LIMIT_MAX_GROUPS');
});
