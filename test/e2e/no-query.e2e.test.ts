// Control-plane endpoints that take no query parameters refuse one (400 invalid_query) instead of
// ignoring it: walked over the generated route table on serve's whole gateway, so an endpoint added
// later is covered too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../generated/routes.ts';
import { serveConfigs, type ServedConfigs } from './serve-in-process.ts';

const ADMIN = 'gw_admin-no-query-0123456789abcdefghijklmnop';
const NO_QUERY = ROUTES.filter((route) => route.queryValidator === 'validateNoQuery');

describe('endpoints without query parameters', () => {
  let served: ServedConfigs;
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${served.gateway.url}${path}`, { method, headers: { 'x-gateway-api-key': ADMIN, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  beforeAll(async () => {
    served = await serveConfigs('no-query', ADMIN, {});
  });
  afterAll(() => served?.close());

  it('are the control plane\'s single records and writes', () => {
    expect(NO_QUERY.length).toBeGreaterThanOrEqual(30);
    expect(NO_QUERY.every((route) => route.plane === 'control')).toBe(true);
  });

  it.each(NO_QUERY.map((route) => [route.operationId, route] as const))('%s refuses an unknown parameter with 400 invalid_query', async (_id, route) => {
    const path = route.path.replace(/\{[^}]+\}/g, 'x');
    const res = await call(route.method, `${path}?unexpected=1`, route.method === 'GET' || route.method === 'DELETE' ? undefined : {});
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 'invalid_query', param: '/unexpected' });
  });

  it('still answer without a query', async () => {
    expect((await call('POST', '/v1/configs', { id: 'no-query-config', config: { provider: 'openai', api_key: 'sk-test-0000' } })).status).toBe(200);
    expect((await call('GET', '/v1/configs/no-query-config')).status).toBe(200);
    expect(((await (await call('GET', '/v1/configs/no-query-config?version=2')).json()) as { error: { code: string } }).error.code).toBe('invalid_query');
  });
});
