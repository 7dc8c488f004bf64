// Saved configs over HTTP, on SQLite and PostgreSQL: CRUD, compile errors as 400 with every error,
// and files from --configs living beside API configs (the file wins on an ID clash).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../store/backends.ts';
import { type ApiGateway, startApiGateway } from './harness.ts';

const FILE_CONFIG = { provider: 'openai', api_key: 'sk-file' };
const VALID = { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'sk-a' }, { virtual_key: 'vk-b' }] };
/** How the API shows them: a credential written in a config is never echoed back. */
const SHOWN = { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: '…' }, { virtual_key: 'vk-b' }] };
const FILE_SHOWN = { provider: 'openai', api_key: '…' };

describe.each(BACKENDS)('configs API on %s', (backend) => {
  let api: ApiGateway;
  let configsDir: string;
  beforeAll(async () => {
    configsDir = mkdtempSync(join(tmpdir(), 'gateway-configs-'));
    writeFileSync(join(configsDir, 'from-file.json'), JSON.stringify(FILE_CONFIG));
    writeFileSync(join(configsDir, 'also-file.json'), JSON.stringify({ retry: { attempts: 1 } }));
    api = await startApiGateway(backend, { configsDir });
    // A config saved through the API must name stored virtual keys (sealed contents are not read here).
    for (const id of ['vk-b', 'vk-c']) await api.gateway.store.virtualKeys.create(id, { name: null, slug: null, provider: 'openai', options: {}, sealed: 'unused', keyHint: null, secretNames: [] });
  });
  afterAll(async () => {
    await api?.close();
    rmSync(configsDir, { recursive: true, force: true });
  });

  it('creates, reads, replaces (version + 1) and deletes; the router follows each step', async () => {
    const created = await api.call('POST', '/v1/configs', { body: { id: 'team-a', name: 'Team A', config: VALID } });
    expect(created.status).toBe(200);
    expect(created.schema).toBe('resources/saved-config.json');
    expect(created.body).toMatchObject({ object: 'config', id: 'team-a', name: 'Team A', source: 'api', version: 1, config: SHOWN });
    expect(JSON.stringify(created.body)).not.toContain('sk-a');
    expect(api.controlPlane.configs.planOf('team-a')?.root.kind).toBe('strategy');
    expect((await api.call('GET', '/v1/configs/team-a')).body).toEqual(created.body);

    const replaced = await api.call('PUT', '/v1/configs/team-a', { body: { config: { virtual_key: 'vk-c' } } });
    expect(replaced.body).toMatchObject({ version: 2, name: 'Team A', config: { virtual_key: 'vk-c' }, created_at: created.body.created_at });
    expect(api.controlPlane.configs.planOf('team-a')?.root.kind).toBe('leaf');
    expect((await api.call('PUT', '/v1/configs/team-a', { body: { name: null, config: VALID } })).body).toMatchObject({ version: 3, name: null });

    const deleted = await api.call('DELETE', '/v1/configs/team-a');
    expect(deleted.body).toEqual({ id: 'team-a', object: 'config', deleted: true });
    expect(api.controlPlane.configs.planOf('team-a')).toBeNull();
    expect((await api.call('GET', '/v1/configs/team-a')).status).toBe(404);
    expect((await api.call('DELETE', '/v1/configs/team-a')).status).toBe(404);
    expect((await api.call('PUT', '/v1/configs/team-a', { body: { config: VALID } })).status).toBe(404);
  });

  it('generates an ID when none is given, and refuses a taken one with 409', async () => {
    const created = await api.call('POST', '/v1/configs', { body: { config: { retry: { attempts: 2 } } } });
    expect(created.body.id).toMatch(/^cfg-[0-9a-f]{16}$/);
    const again = await api.call('POST', '/v1/configs', { body: { id: created.body.id, config: VALID } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('resource_already_exists');
    expect((await api.call('GET', `/v1/configs/${created.body.id}`)).body.config).toEqual({ retry: { attempts: 2 } });
  });

  it('refuses what gateway compile warns has no effect: a field no strategy reads there, a breaker that never skips', async () => {
    const cases: Array<[unknown, string, string]> = [
      [{ provider: 'openai', api_key: 'sk-a', cloudb_region: 'us-central1' }, 'CFG_FIELD_WITHOUT_EFFECT', '/cloudb_region'],
      [{ strategy: { mode: 'loadbalance' }, targets: [{ provider: 'openai', api_key: 'sk-a', on_status_codes: [429] }, { provider: 'openai', api_key: 'sk-b' }] }, 'CFG_FIELD_WITHOUT_EFFECT', '/targets/0/on_status_codes'],
      [{ provider: 'openai', api_key: 'sk-a', cb_config: { failure_threshold: 3, cooldown_interval: 60000 } }, 'CFG_BREAKER_NEVER_SKIPS', '/cb_config'],
    ];
    for (const [config, code, pointer] of cases) {
      const res = await api.call('POST', '/v1/configs', { body: { id: 'idle-field', config } });
      expect(res.status, code).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_config', param: '/config' });
      expect(res.body.error.errors).toContainEqual(expect.objectContaining({ code, pointer }));
    }
    expect((await api.call('GET', '/v1/configs/idle-field')).status).toBe(404);
  });

  it('answers an invalid config with 400 invalid_config carrying every compile error, and saves nothing', async () => {
    const broken = { strategy: { mode: 'fallback' }, targets: [{ providr: 'openai', api_key: 'k' }, { retry: { attempts: 9 } }] };
    const res = await api.call('POST', '/v1/configs', { body: { id: 'broken', config: broken } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_config', type: 'invalid_request_error', param: '/config' });
    const errors = res.body.error.errors as Array<{ code: string; pointer: string; message: string; hint?: string }>;
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'CFG_UNKNOWN_KEY', pointer: '/targets/0/providr', hint: expect.stringContaining('provider') }),
        expect.objectContaining({ code: 'CFG_TOO_MANY_RETRIES', pointer: '/targets/1/retry/attempts' }),
      ]),
    );
    for (const error of errors) expect(typeof error.message).toBe('string');
    expect((await api.call('GET', '/v1/configs/broken')).status).toBe(404);

    await api.call('POST', '/v1/configs', { body: { id: 'keeps-old', config: VALID } });
    const bad = await api.call('PUT', '/v1/configs/keeps-old', { body: { config: { strategy: { mode: 'loadbalance' } } } });
    expect(bad.body.error.errors.map((e: { code: string }) => e.code)).toContain('CFG_STRATEGY_WITHOUT_TARGETS');
    expect((await api.call('GET', '/v1/configs/keeps-old')).body).toMatchObject({ version: 1, config: SHOWN });
  });

  it('refuses a config whose custom_host is a metadata address or name when it is saved', async () => {
    for (const host of ['http://100.100.100.200/v1', 'http://[64:ff9b::a9fe:a9fe]/v1', 'http://instance-data/v1']) {
      const res = await api.call('POST', '/v1/configs', { body: { id: 'meta', config: { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'k' }, { provider: 'openai', api_key: 'k', custom_host: host }] } } });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'custom_host_not_allowed' });
      expect(res.body.error.message).toContain('config.targets[1]');
    }
    expect((await api.call('GET', '/v1/configs/meta')).status).toBe(404);
  });

  it('refuses a config with a key twice (JSON.parse would keep the last silently), as gateway compile does', async () => {
    const raw = '{"id": "dup", "config": {"provider": "openai", "api_key": "sk-a", "api_key": "sk-b"}}';
    const created = await api.call('POST', '/v1/configs', { rawBody: raw, headers: { 'content-type': 'application/json' } });
    expect(created.status).toBe(400);
    expect(created.body.error).toMatchObject({ code: 'invalid_config', errors: [expect.objectContaining({ code: 'CFG_DUPLICATE_KEY', pointer: '/api_key' })] });
    expect((await api.call('GET', '/v1/configs/dup')).status).toBe(404);
  });

  it('refuses bodies that are not configs and IDs that could not be sent in a header', async () => {
    for (const body of [{}, { config: [] }, { config: 'x' }, { id: 'bad id', config: VALID }, { id: 'a@b', config: VALID }, { config: VALID, extra: 1 }]) {
      const res = await api.call('POST', '/v1/configs', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request_body');
    }
  });

  it('refuses text with U+0000, which PostgreSQL cannot store, with 400 unstorable_text on either backend, and saves nothing', async () => {
    const refused = await api.call('POST', '/v1/configs', { body: { id: 'nul-name', name: 'Team\u0000A', config: VALID } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'unstorable_text', type: 'invalid_request_error' });
    expect((await api.call('GET', '/v1/configs/nul-name')).status).toBe(404);
    expect((await api.call('GET', '/v1/configs/nul%00name')).body.error.code).toBe('unstorable_text');
  });

  it('shows file configs read-only beside API configs; the file wins on an ID clash', async () => {
    const file = await api.call('GET', '/v1/configs/from-file');
    expect(file.body).toMatchObject({ id: 'from-file', source: 'file', version: 1, config: FILE_SHOWN, name: null });
    for (const [method, body] of [['PUT', { config: VALID }], ['DELETE', undefined]] as const) {
      const res = await api.call(method, '/v1/configs/from-file', { body });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('config_read_only');
    }
    const clash = await api.call('POST', '/v1/configs', { body: { id: 'from-file', config: VALID } });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe('resource_already_exists');

    // Another process without that file saved the ID: this process keeps routing the file.
    await api.gateway.store.configs.create({ id: 'also-file', name: 'from elsewhere', config: VALID });
    await api.gateway.store.changes.refresh();
    expect(api.controlPlane.configs.planOf('also-file')?.root.kind).toBe('leaf');
    expect((await api.call('GET', '/v1/configs/also-file')).body.source).toBe('file');
  });

  it('lists file configs first, then API configs, with paging across both', async () => {
    const ids = ['list-1', 'list-2', 'list-3'];
    for (const id of ids) await api.call('POST', '/v1/configs', { body: { id, config: { retry: { attempts: 1 } } } });
    const all = (await api.call('GET', '/v1/configs')).body;
    expect(all.total).toBe(all.data.length);
    expect(all.data.slice(0, 2).map((c: { id: string; source: string }) => [c.id, c.source])).toEqual([['also-file', 'file'], ['from-file', 'file']]);
    expect(all.data.filter((c: { id: string }) => c.id === 'also-file')).toHaveLength(1);
    for (const size of [1, 2, 3, 5]) {
      const pages = [];
      for (let page = 0; page * size < all.total; page++) {
        const res = (await api.call('GET', `/v1/configs?page_size=${size}&current_page=${page}`)).body;
        expect(res.total).toBe(all.total);
        pages.push(...res.data);
      }
      expect(pages).toEqual(all.data);
    }
  });
});
