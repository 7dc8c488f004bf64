// Rate-limits and usage-limits policies over HTTP, on SQLite and PostgreSQL, rule by rule: SPEC §2.8
// records, §4.12 get with `status`, §4.13 filters and paging with `total`, §4.11 creation rules;
// plus update, archive and delete, and organisations kept apart.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../store/backends.ts';
import { type ApiGateway, startApiGateway } from './harness.ts';

const USAGE = { conditions: [{ key: 'metadata.team', value: 'k1' }], group_by: [{ key: 'api_key' }], type: 'cost', credit_limit: 100 };

describe.each(BACKENDS)('policies API on %s', (backend) => {
  let api: ApiGateway;
  let me: { id: string; workspace_id: string; organisation_id: string };
  beforeAll(async () => {
    api = await startApiGateway(backend);
    me = (await api.call('GET', '/v1/api-keys')).body.data[0];
  });
  afterAll(() => api?.close());

  describe('rate-limits', () => {
    it('creates {id, object}; gets the SPEC §2.8 record with object; defaults owner to the key', async () => {
      const created = await api.call('POST', '/v1/policies/rate-limits', { body: { type: 'requests', unit: 'rpm', value: 60, name: 'per key', conditions: [{ key: 'api_key', value: me.id }], group_by: [{ key: 'api_key' }] } });
      expect(created.status).toBe(200);
      expect(created.schema).toBe('resources/rate-limits-policy-created.json');
      expect(created.body.object).toBe('policy_rate_limits');
      const got = await api.call('GET', `/v1/policies/rate-limits/${created.body.id}`);
      expect(got.schema).toBe('resources/rate-limits-policy.json');
      expect(got.body).toMatchObject({
        id: created.body.id, object: 'policy_rate_limits', type: 'requests', unit: 'rpm', value: 60, status: 'active', name: 'per key',
        workspace_id: me.workspace_id, organisation_id: me.organisation_id, conditions: [{ key: 'api_key', value: me.id }], group_by: [{ key: 'api_key' }],
      });
      expect(got.body.created_at).toBe(got.body.last_updated_at);
      const minimal = await api.call('POST', '/v1/policies/rate-limits', { body: { type: 'tokens', unit: 'rpd', value: 0 } });
      expect((await api.call('GET', `/v1/policies/rate-limits/${minimal.body.id}`)).body).toMatchObject({ name: null, conditions: [], group_by: [], value: 0 });
    });

    it('refuses bodies that break the record rules', async () => {
      for (const body of [
        { unit: 'rpm', value: 1 },
        { type: 'requests', value: 1 },
        { type: 'requests', unit: 'rpm' },
        { type: 'cost', unit: 'rpm', value: 1 },
        { type: 'requests', unit: 'rps', value: 1 },
        { type: 'requests', unit: 'rpm', value: -1 },
        { type: 'requests', unit: 'rpm', value: '5' },
        { type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'k' }] },
        { type: 'requests', unit: 'rpm', value: 1, group_by: [{ value: 'v' }] },
        { type: 'requests', unit: 'rpm', value: 1, organisation_id: 'acme' },
        { type: 'requests', unit: 'rpm', value: 1, workspace_id: 'my-workspace-slug' },
        { type: 'requests', unit: 'rpm', value: 1, status: 'archived' },
      ]) {
        const res = await api.call('POST', '/v1/policies/rate-limits', { body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBe('invalid_request_body');
      }
      const foreign = await api.call('POST', '/v1/policies/rate-limits', { body: { type: 'requests', unit: 'rpm', value: 1, organisation_id: randomUUID() } });
      expect(foreign.status).toBe(403);
    });

    it('refuses a provider condition no provider could match (a misspelt name would leave the limit off), on create and update, for both kinds', async () => {
      const rate = { type: 'requests', unit: 'rpm', value: 1 };
      const typo = await api.call('POST', '/v1/policies/rate-limits', { body: { ...rate, conditions: [{ key: 'metadata.team', value: 'a' }, { key: 'provider', value: 'opnai' }] } });
      expect(typo.status).toBe(400);
      expect(typo.body.error).toMatchObject({ code: 'invalid_request_body', param: '/conditions/1/value' });
      expect(typo.body.error.message).toContain('did you mean "openai"?');
      for (const value of ['zz*', 'open-ai']) expect((await api.call('POST', '/v1/policies/usage-limits', { body: { ...USAGE, conditions: [{ key: 'provider', value }] } })).status, value).toBe(400);
      // A slug names an integration: its targets have its provider, and its ID as virtual_key.
      const slug = await api.call('POST', '/v1/policies/rate-limits', { body: { ...rate, conditions: [{ key: 'provider', value: '@team-openai' }] } });
      expect(slug.status).toBe(400);
      expect(slug.body.error.message).toContain('"key": "virtual_key"');
      // A name, an alias (any case), a prefix of a name, or any provider.
      for (const value of ['vendor', 'OpenAI', 'open*', '*']) {
        expect((await api.call('POST', '/v1/policies/rate-limits', { body: { ...rate, conditions: [{ key: 'provider', value }] } })).status, value).toBe(200);
      }
      // API keys are matched by the IDs the gateway made; a name in their place matches nothing (virtual keys: test/e2e/limits.e2e.test.ts).
      expect((await api.call('POST', '/v1/policies/rate-limits', { body: { ...rate, conditions: [{ key: 'api_key', value: 'my-key' }] } })).body.error).toMatchObject({ code: 'invalid_request_body', param: '/conditions/0/value' });
      expect((await api.call('POST', '/v1/policies/rate-limits', { body: { ...rate, conditions: [{ key: 'api_key', value: me.id }] } })).status).toBe(200);
      const created = await api.call('POST', '/v1/policies/rate-limits', { body: rate });
      const update = await api.call('PUT', `/v1/policies/rate-limits/${created.body.id}`, { body: { conditions: [{ key: 'provider', value: 'antropic' }] } });
      expect(update.status).toBe(400);
      expect(update.body.error.message).toContain('did you mean "anthropic"?');
    });

    it('GET honours status (default active); unknown and malformed IDs are 404', async () => {
      const { body } = await api.call('POST', '/v1/policies/rate-limits', { body: { type: 'requests', unit: 'rph', value: 5 } });
      expect((await api.call('GET', `/v1/policies/rate-limits/${body.id}?status=archived`)).status).toBe(404);
      const archived = await api.call('POST', `/v1/policies/rate-limits/${body.id}/archive`);
      expect(archived.body).toMatchObject({ object: 'policy_rate_limits', status: 'archived' });
      const asActive = await api.call('GET', `/v1/policies/rate-limits/${body.id}`);
      expect(asActive.status).toBe(404);
      expect(asActive.body.error.message).toContain('status=archived');
      expect((await api.call('GET', `/v1/policies/rate-limits/${body.id}?status=archived`)).body.status).toBe('archived');
      expect((await api.call('GET', `/v1/policies/rate-limits/${body.id}?status=deleted`)).body.error.code).toBe('invalid_query');
      expect((await api.call('GET', `/v1/policies/rate-limits/${randomUUID()}`)).status).toBe(404);
      expect((await api.call('GET', '/v1/policies/rate-limits/not-a-uuid')).status).toBe(404);
    });

    it('updates active policies only; archive is one way; delete removes', async () => {
      const { body } = await api.call('POST', '/v1/policies/rate-limits', { body: { type: 'requests', unit: 'rpm', value: 10 } });
      const updated = await api.call('PUT', `/v1/policies/rate-limits/${body.id}`, { body: { value: 20, unit: 'rph', name: 'hourly', conditions: [{ key: 'metadata._user', value: 'u' }] } });
      expect(updated.body).toMatchObject({ object: 'policy_rate_limits', value: 20, unit: 'rph', type: 'requests', name: 'hourly', status: 'active' });
      expect(updated.body.last_updated_at >= updated.body.created_at).toBe(true);
      expect((await api.call('PUT', `/v1/policies/rate-limits/${body.id}`, { body: {} })).body.error.code).toBe('invalid_request_body');
      expect((await api.call('PUT', `/v1/policies/rate-limits/${body.id}`, { body: { status: 'archived' } })).body.error.code).toBe('invalid_request_body');
      await api.call('POST', `/v1/policies/rate-limits/${body.id}/archive`);
      const again = await api.call('POST', `/v1/policies/rate-limits/${body.id}/archive`);
      expect(again.body.status).toBe('archived');
      const refused = await api.call('PUT', `/v1/policies/rate-limits/${body.id}`, { body: { value: 1 } });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('policy_archived');
      expect((await api.call('DELETE', `/v1/policies/rate-limits/${body.id}`)).body).toEqual({ id: body.id, object: 'policy_rate_limits', deleted: true });
      expect((await api.call('GET', `/v1/policies/rate-limits/${body.id}?status=archived`)).status).toBe(404);
      expect((await api.call('DELETE', `/v1/policies/rate-limits/${body.id}`)).status).toBe(404);
      expect((await api.call('POST', `/v1/policies/rate-limits/${body.id}/archive`)).status).toBe(404);
    });

    it('lists with workspace_id, status (default active), type and unit filters, and page_size / current_page with total', async () => {
      const workspace = randomUUID();
      const made: Array<{ id: string; type: string; unit: string; archived: boolean }> = [];
      for (let i = 0; i < 9; i++) {
        const type = i % 2 === 0 ? 'requests' : 'tokens';
        const unit = ['rpm', 'rph', 'rpd'][i % 3];
        const { body } = await api.call('POST', '/v1/policies/rate-limits', { body: { type, unit, value: i, workspace_id: workspace } });
        const archived = i % 4 === 3;
        if (archived) await api.call('POST', `/v1/policies/rate-limits/${body.id}/archive`);
        made.push({ id: body.id, type, unit, archived });
      }
      const ids = (query: string) => api.call('GET', `/v1/policies/rate-limits?workspace_id=${workspace}${query}`).then((r) => {
        expect(r.schema).toBe('resources/rate-limits-policy-list.json');
        for (const item of r.body.data) expect(item.object).toBeUndefined();
        return { ids: r.body.data.map((p: { id: string }) => p.id), total: r.body.total };
      });
      const active = made.filter((p) => !p.archived).map((p) => p.id);
      expect(await ids('')).toEqual({ ids: active, total: active.length });
      expect(await ids('&status=archived')).toEqual({ ids: made.filter((p) => p.archived).map((p) => p.id), total: 2 });
      const tokensRph = made.filter((p) => !p.archived && p.type === 'tokens' && p.unit === 'rph').map((p) => p.id);
      expect(await ids('&type=tokens&unit=rph')).toEqual({ ids: tokensRph, total: tokensRph.length });
      expect(await ids('&page_size=3&current_page=1')).toEqual({ ids: active.slice(3, 6), total: active.length });
      expect(await ids('&page_size=3&current_page=5')).toEqual({ ids: [], total: active.length });
      expect(await ids('&page_size=0')).toEqual({ ids: [], total: active.length });
      expect((await api.call('GET', `/v1/policies/rate-limits?workspace_id=${randomUUID()}`)).body).toEqual({ object: 'list', data: [], total: 0 });
      for (const query of ['page_size=-1', 'current_page=-1', 'page_size=1.5', 'type=cost', 'unit=rps', 'status=any', 'workspace_id=slug', 'extra=1']) {
        expect((await api.call('GET', `/v1/policies/rate-limits?${query}`)).body.error.code, query).toBe('invalid_query');
      }
    });
  });

  describe('usage-limits', () => {
    it('creates with every §4.11 field and returns {id, object}; the stored record reads back', async () => {
      const created = await api.call('POST', '/v1/policies/usage-limits', { body: { ...USAGE, name: 'n'.repeat(255), alert_threshold: 99.5, periodic_reset: 'weekly' } });
      expect(created.status).toBe(200);
      expect(created.schema).toBe('resources/usage-limits-policy-created.json');
      expect(Object.keys(created.body).sort()).toEqual(['id', 'object']);
      expect(created.body.object).toBe('policy_usage_limits');
      const got = await api.call('GET', `/v1/policies/usage-limits/${created.body.id}`);
      expect(got.schema).toBe('resources/usage-limits-policy.json');
      expect(got.body).toMatchObject({ ...USAGE, object: 'policy_usage_limits', alert_threshold: 99.5, periodic_reset: 'weekly', workspace_id: me.workspace_id, organisation_id: me.organisation_id });
      const cumulative = await api.call('POST', '/v1/policies/usage-limits', { body: { ...USAGE, type: 'tokens', credit_limit: 0 } });
      expect((await api.call('GET', `/v1/policies/usage-limits/${cumulative.body.id}`)).body).toMatchObject({ periodic_reset: null, alert_threshold: null, name: null, credit_limit: 0 });
      const workspace = randomUUID();
      const placed = await api.call('POST', '/v1/policies/usage-limits', { body: { ...USAGE, workspace_id: workspace, organisation_id: me.organisation_id } });
      expect((await api.call('GET', `/v1/policies/usage-limits/${placed.body.id}`)).body.workspace_id).toBe(workspace);
    });

    it.each([
      ['conditions missing', { conditions: undefined }],
      ['conditions empty', { conditions: [] }],
      ['condition without value', { conditions: [{ key: 'k' }] }],
      ['group_by missing', { group_by: undefined }],
      ['group_by empty', { group_by: [] }],
      ['type not cost or tokens', { type: 'requests' }],
      ['type missing', { type: undefined }],
      ['credit_limit missing', { credit_limit: undefined }],
      ['credit_limit below 0', { credit_limit: -0.01 }],
      ['alert_threshold below 0', { alert_threshold: -1 }],
      ['alert_threshold equal to credit_limit', { alert_threshold: 100 }],
      ['alert_threshold above credit_limit', { alert_threshold: 150 }],
      ['periodic_reset daily', { periodic_reset: 'daily' }],
      ['name over 255', { name: 'n'.repeat(256) }],
      ['organisation_id not a UUID', { organisation_id: 'acme' }],
      ['workspace_id a slug', { workspace_id: 'team-a' }],
      ['unknown key', { limit: 5 }],
    ])('refuses %s with 400', async (_, change) => {
      const res = await api.call('POST', '/v1/policies/usage-limits', { body: { ...USAGE, ...change } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request_body');
    });

    it('needs no workspace_id / organisation_id from a key that carries them, and refuses another organisation', async () => {
      expect((await api.call('POST', '/v1/policies/usage-limits', { body: USAGE })).status).toBe(200);
      const res = await api.call('POST', '/v1/policies/usage-limits', { body: { ...USAGE, organisation_id: randomUUID() } });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    });

    it('updates (rules held against the stored policy), lists with filters and paging, deletes', async () => {
      const workspace = randomUUID();
      const ids: string[] = [];
      for (const type of ['cost', 'tokens', 'cost']) ids.push((await api.call('POST', '/v1/policies/usage-limits', { body: { ...USAGE, type, workspace_id: workspace, alert_threshold: 50 } })).body.id);
      const updated = await api.call('PUT', `/v1/policies/usage-limits/${ids[0]}`, { body: { credit_limit: 500, periodic_reset: 'monthly', name: 'bigger' } });
      expect(updated.body).toMatchObject({ object: 'policy_usage_limits', credit_limit: 500, alert_threshold: 50, periodic_reset: 'monthly', name: 'bigger' });
      const belowThreshold = await api.call('PUT', `/v1/policies/usage-limits/${ids[0]}`, { body: { credit_limit: 40 } });
      expect(belowThreshold.status).toBe(400);
      expect(belowThreshold.body.error.param).toBe('/alert_threshold');
      expect((await api.call('PUT', `/v1/policies/usage-limits/${ids[0]}`, { body: { credit_limit: 10, alert_threshold: 20 } })).status).toBe(400);
      expect((await api.call('PUT', `/v1/policies/usage-limits/${ids[0]}`, { body: { credit_limit: 40, alert_threshold: null } })).body).toMatchObject({ credit_limit: 40, alert_threshold: null });
      expect((await api.call('PUT', `/v1/policies/usage-limits/${ids[0]}`, { body: { type: 'tokens' } })).status).toBe(400);
      expect((await api.call('PUT', `/v1/policies/usage-limits/${randomUUID()}`, { body: { name: 'x' } })).status).toBe(404);

      const list = (query: string) => api.call('GET', `/v1/policies/usage-limits?workspace_id=${workspace}${query}`).then((r) => {
        expect(r.schema).toBe('resources/usage-limits-policy-list.json');
        return { ids: r.body.data.map((p: { id: string }) => p.id), total: r.body.total };
      });
      expect(await list('')).toEqual({ ids, total: 3 });
      expect(await list('&type=cost')).toEqual({ ids: [ids[0], ids[2]], total: 2 });
      expect(await list('&page_size=2&current_page=1')).toEqual({ ids: [ids[2]], total: 3 });
      expect((await api.call('GET', '/v1/policies/usage-limits?type=requests')).body.error.code).toBe('invalid_query');

      expect((await api.call('DELETE', `/v1/policies/usage-limits/${ids[1]}`)).body).toEqual({ id: ids[1], object: 'policy_usage_limits', deleted: true });
      expect(await list('')).toEqual({ ids: [ids[0], ids[2]], total: 2 });
      expect((await api.call('GET', `/v1/policies/usage-limits/${ids[1]}`)).status).toBe(404);
    });
  });

  it('keeps the in-memory policy copy (what enforcement reads) in step with every write', async () => {
    const rate = (await api.call('POST', '/v1/policies/rate-limits', { body: { type: 'requests', unit: 'rpm', value: 7 } })).body.id;
    const usage = (await api.call('POST', '/v1/policies/usage-limits', { body: USAGE })).body.id;
    const catalog = api.controlPlane.policies;
    expect(catalog.activeRateLimits().find((p) => p.id === rate)?.value).toBe(7);
    expect(catalog.usageLimits().some((p) => p.id === usage)).toBe(true);
    await api.call('PUT', `/v1/policies/rate-limits/${rate}`, { body: { value: 8 } });
    expect(catalog.activeRateLimits().find((p) => p.id === rate)?.value).toBe(8);
    await api.call('POST', `/v1/policies/rate-limits/${rate}/archive`);
    expect(catalog.activeRateLimits().some((p) => p.id === rate)).toBe(false);
    await api.call('DELETE', `/v1/policies/usage-limits/${usage}`);
    expect(catalog.usageLimits().some((p) => p.id === usage)).toBe(false);
  });

  it("hides other organisations' policies", async () => {
    const other = await api.gateway.store.apiKeys.create({ scope: 'admin', organisationId: randomUUID() });
    await api.gateway.store.changes.refresh();
    const theirs = (await api.call('POST', '/v1/policies/rate-limits', { key: other.key, body: { type: 'requests', unit: 'rpm', value: 1 } })).body.id;
    const theirUsage = (await api.call('POST', '/v1/policies/usage-limits', { key: other.key, body: USAGE })).body.id;
    expect((await api.call('GET', `/v1/policies/rate-limits/${theirs}`)).status).toBe(404);
    expect((await api.call('PUT', `/v1/policies/rate-limits/${theirs}`, { body: { value: 2 } })).status).toBe(404);
    expect((await api.call('DELETE', `/v1/policies/rate-limits/${theirs}`)).status).toBe(404);
    expect((await api.call('GET', `/v1/policies/usage-limits/${theirUsage}`)).status).toBe(404);
    expect((await api.call('GET', '/v1/policies/rate-limits')).body.data.map((p: { id: string }) => p.id)).not.toContain(theirs);
    expect((await api.call('GET', '/v1/policies/rate-limits', { key: other.key })).body.data.map((p: { id: string }) => p.id)).toEqual([theirs]);
    // A condition on another organisation's key could match none of this organisation's requests.
    const foreignKey = await api.call('POST', '/v1/policies/rate-limits', { body: { type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'api_key', value: other.record.id }] } });
    expect(foreignKey.status).toBe(400);
    expect(foreignKey.body.error).toMatchObject({ code: 'invalid_request_body', param: '/conditions/0/value' });
  });
});
