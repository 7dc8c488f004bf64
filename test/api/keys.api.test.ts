// The keys admin API over HTTP, on SQLite and PostgreSQL: create / list / get / revoke, scopes
// enforced on every admin endpoint, organisations kept apart, changes effective at once.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../store/backends.ts';
import { ADMIN_KEY, type ApiGateway, startApiGateway } from './harness.ts';

const ADMIN_ENDPOINTS: Array<[string, string, unknown?]> = [
  ['POST', '/v1/api-keys', {}],
  ['GET', '/v1/api-keys'],
  ['GET', `/v1/api-keys/${randomUUID()}`],
  ['DELETE', `/v1/api-keys/${randomUUID()}`],
  ['POST', '/v1/configs', { config: { retry: { attempts: 1 } } }],
  ['GET', '/v1/configs'],
  ['GET', '/v1/configs/x'],
  ['PUT', '/v1/configs/x', { config: { retry: { attempts: 1 } } }],
  ['DELETE', '/v1/configs/x'],
  ['POST', '/v1/prompts', { name: 'p', messages: [{ role: 'user', content: 'x' }] }],
  ['GET', '/v1/prompts'],
  ['GET', '/v1/prompts/x'],
  ['PUT', '/v1/prompts/x', { messages: [{ role: 'user', content: 'x' }] }],
  ['DELETE', '/v1/prompts/x'],
  ['GET', '/v1/prompts/x/versions'],
  ['POST', '/v1/policies/rate-limits', { type: 'requests', unit: 'rpm', value: 1 }],
  ['GET', '/v1/policies/rate-limits'],
  ['GET', `/v1/policies/rate-limits/${randomUUID()}`],
  ['PUT', `/v1/policies/rate-limits/${randomUUID()}`, { value: 2 }],
  ['POST', `/v1/policies/rate-limits/${randomUUID()}/archive`],
  ['DELETE', `/v1/policies/rate-limits/${randomUUID()}`],
  ['POST', '/v1/policies/usage-limits', { conditions: [{ key: 'metadata.team', value: 'v' }], group_by: [{ key: 'api_key' }], type: 'cost', credit_limit: 1 }],
  ['GET', '/v1/policies/usage-limits'],
  ['GET', `/v1/policies/usage-limits/${randomUUID()}`],
  ['PUT', `/v1/policies/usage-limits/${randomUUID()}`, { name: 'x' }],
  ['DELETE', `/v1/policies/usage-limits/${randomUUID()}`],
];

describe.each(BACKENDS)('keys admin API on %s', (backend) => {
  let api: ApiGateway;
  beforeAll(async () => {
    api = await startApiGateway(backend);
  });
  afterAll(() => api?.close());

  it('creates a key shown once; it authenticates at once and carries its workspace, organisation and scope', async () => {
    const created = await api.call('POST', '/v1/api-keys', { body: { name: 'ci', scope: 'inference' } });
    expect(created.status).toBe(200);
    expect(created.schema).toBe('resources/api-key-created.json');
    const { key, ...record } = created.body;
    expect(key).toMatch(/^gw_/);
    expect(record).toMatchObject({ object: 'api_key', name: 'ci', scope: 'inference', revoked_at: null });
    const me = (await api.call('GET', '/v1/api-keys')).body.data.find((k: { name: string }) => k.name === 'GATEWAY_API_KEY');
    expect(record).toMatchObject({ workspace_id: me.workspace_id, organisation_id: me.organisation_id });
    expect(JSON.stringify((await api.call('GET', '/v1/api-keys')).body)).not.toContain(key);
    // Works right away for what its scope allows: rendering a prompt that does not exist is a 404, not a 401.
    expect((await api.call('POST', '/v1/prompts/none/render', { key, body: { variables: {} } })).status).toBe(404);
    expect((await api.call('GET', `/v1/api-keys/${record.id}`)).body).toEqual(record);
  });

  it.each(ADMIN_ENDPOINTS)('inference keys get 403 on %s %s', async (method, path, body) => {
    const { body: created } = await api.call('POST', '/v1/api-keys', { body: { scope: 'inference' } });
    const res = await api.call(method, path, { key: created.key, body });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });

  it('refuses missing, unknown and revoked keys with 401 on admin endpoints', async () => {
    expect((await api.call('GET', '/v1/api-keys', { key: null })).body.error.code).toBe('missing_gateway_api_key');
    expect((await api.call('GET', '/v1/api-keys', { key: 'gw_nope' })).body.error.code).toBe('invalid_gateway_api_key');
    const { body: admin } = await api.call('POST', '/v1/api-keys', { body: { scope: 'admin', name: 'short-lived admin' } });
    expect((await api.call('GET', '/v1/api-keys', { key: admin.key })).status).toBe(200);
    const revoked = await api.call('DELETE', `/v1/api-keys/${admin.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    expect((await api.call('GET', '/v1/api-keys', { key: admin.key })).status).toBe(401);
    // Revoking again keeps the first revocation; the record stays listed.
    expect((await api.call('DELETE', `/v1/api-keys/${admin.id}`)).body.revoked_at).toBe(revoked.body.revoked_at);
    expect((await api.call('GET', '/v1/api-keys')).body.data.map((k: { id: string }) => k.id)).toContain(admin.id);
  });

  it('keeps organisations apart: other organisations cannot be created in, listed, read or revoked', async () => {
    const ours = (await api.call('GET', '/v1/api-keys')).body.data[0].organisation_id;
    const foreign = await api.call('POST', '/v1/api-keys', { body: { organisation_id: randomUUID() } });
    expect(foreign.status).toBe(403);
    const workspace = randomUUID();
    const inWorkspace = await api.call('POST', '/v1/api-keys', { body: { workspace_id: workspace.toUpperCase(), organisation_id: ours, scope: 'admin' } });
    expect(inWorkspace.body).toMatchObject({ workspace_id: workspace, organisation_id: ours });

    // A key of another organisation, made through the store as `gateway keys` would.
    const other = await api.gateway.store.apiKeys.create({ scope: 'admin', organisationId: randomUUID() });
    await api.gateway.store.changes.refresh();
    expect((await api.call('GET', `/v1/api-keys/${other.record.id}`)).status).toBe(404);
    expect((await api.call('DELETE', `/v1/api-keys/${other.record.id}`)).status).toBe(404);
    expect((await api.call('GET', '/v1/api-keys')).body.data.map((k: { id: string }) => k.id)).not.toContain(other.record.id);
    const theirs = await api.call('GET', '/v1/api-keys', { key: other.key });
    expect(theirs.body.data.map((k: { id: string }) => k.id)).toEqual([other.record.id]);
  });

  it('pages the list with a total', async () => {
    const all = (await api.call('GET', '/v1/api-keys')).body;
    expect(all.total).toBe(all.data.length);
    const page = await api.call('GET', '/v1/api-keys?page_size=2&current_page=1');
    expect(page.body.total).toBe(all.total);
    expect(page.body.data).toEqual(all.data.slice(2, 4));
    expect((await api.call('GET', '/v1/api-keys?page_size=0')).body).toEqual({ object: 'list', data: [], total: all.total });
    expect((await api.call('GET', '/v1/api-keys?page_size=-1')).body.error.code).toBe('invalid_query');
  });

  it('validates bodies and IDs', async () => {
    for (const body of [{ scope: 'root' }, { name: 'n'.repeat(256) }, { workspace_id: 'ws-1' }, { extra: true }]) {
      const res = await api.call('POST', '/v1/api-keys', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request_body');
    }
    expect((await api.call('POST', '/v1/api-keys', { rawBody: '{', headers: { 'content-type': 'application/json' } })).body.error.code).toBe('invalid_json');
    expect((await api.call('GET', '/v1/api-keys/%E0%A4%A')).status).toBe(404);
    expect((await api.call('GET', `/v1/api-keys/${ADMIN_KEY}`)).status).toBe(404);
  });
});
