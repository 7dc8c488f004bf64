// Named guardrails over HTTP, on SQLite and PostgreSQL: CRUD checked like a config's checks, configs
// that name a guardrail by ID (saved and inline) enforce it, an update reaches the routers of every
// process, a guardrail a saved config names cannot be deleted, and file guardrails are read-only.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { BACKENDS } from '../store/backends.ts';
import { type ApiGateway, startApiGateway } from './harness.ts';

const SHORT = { name: 'Short prompts', checks: [{ id: 'default.wordCount', parameters: { maxWords: 3 } }], deny: true, on_fail: { feedback: { value: -1 } } };

describe.each(BACKENDS)('guardrails API on %s', (backend) => {
  let api: ApiGateway;
  let second: ApiGateway;
  let mock: VendorMock;
  let dir: string;
  const target = () => ({ provider: 'vendor', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL });
  const chat = (gateway: ApiGateway, config: string, content: string) => gateway.call('POST', '/v1/chat/completions', { headers: { 'x-gateway-config': config }, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content }] } });

  beforeAll(async () => {
    mock = await startVendorMock();
    dir = await mkdtemp(join(tmpdir(), 'gateway-guardrails-'));
    await mkdir(join(dir, 'guardrails'));
    await writeFile(join(dir, 'guardrails', 'from-file.json'), JSON.stringify({ checks: [{ id: 'default.notNull', parameters: {} }], deny: true }));
    api = await startApiGateway(backend, { guardrailsDir: join(dir, 'guardrails') });
    second = await startApiGateway(backend, { location: api.location, guardrailsDir: join(dir, 'guardrails') });
  });
  afterAll(async () => {
    await second?.close();
    await api?.close();
    await mock?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('stores a guardrail and shows it with the file guardrails', async () => {
    const created = await api.call('POST', '/v1/guardrails', { body: { id: 'short', ...SHORT } });
    expect(created.status).toBe(200);
    expect(created.schema).toBe('resources/guardrail.json');
    expect(created.body).toMatchObject({ object: 'guardrail', id: 'short', name: 'Short prompts', source: 'api', deny: true, async: false, version: 1, checks: SHORT.checks });
    const list = await api.call('GET', '/v1/guardrails');
    expect(list.body.data.map((g: { id: string; source: string }) => [g.id, g.source])).toEqual([['from-file', 'file'], ['short', 'api']]);
    expect((await api.call('GET', '/v1/guardrails/short')).body.version).toBe(1);
    expect((await api.call('POST', '/v1/guardrails', { body: { id: 'short', ...SHORT } })).body.error.code).toBe('resource_already_exists');
  });

  it('refuses a guardrail whose checks a config could not have, with every error located', async () => {
    const res = await api.call('POST', '/v1/guardrails', { body: { checks: [{ id: 'default.wordcount', parameters: {} }, { id: 'default.regexMatch', parameters: { rule: '(a' } }], deny: true, async: true } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_guardrail');
    expect(res.body.error.errors).toEqual([
      expect.objectContaining({ code: 'CFG_ASYNC_GUARDRAIL_DENIES', pointer: '/async' }),
      expect.objectContaining({ code: 'CFG_UNKNOWN_CHECK', pointer: '/checks/0/id', hint: 'did you mean "default.wordCount"?' }),
      expect.objectContaining({ code: 'CFG_INVALID_CHECK_REGEX', pointer: '/checks/1/parameters/rule' }),
    ]);
  });

  it('enforces a guardrail a saved config names by ID, in every process, and follows its updates', async () => {
    const saved = await api.call('POST', '/v1/configs', { body: { id: 'guarded', config: { ...target(), input_guardrails: ['short', 'from-file'] } } });
    expect(saved.status).toBe(200);
    const denied = await chat(api, 'guarded', 'one two three four five');
    expect(denied.status).toBe(446);
    expect(denied.body.hook_results.before_request_hooks.map((h: { id: string; verdict: boolean }) => [h.id, h.verdict])).toEqual([['short', false], ['from-file', true]]);
    expect((await chat(api, 'guarded', 'one two')).status).toBe(200);
    // The other process compiled the same config with the same guardrail.
    await waitFor(async () => (await chat(second, 'guarded', 'one two three four five')).status === 446);
    const updated = await api.call('PUT', '/v1/guardrails/short', { body: { ...SHORT, checks: [{ id: 'default.wordCount', parameters: { maxWords: 10 } }] } });
    expect(updated.body.version).toBe(2);
    expect((await chat(api, 'guarded', 'one two three four five')).status).toBe(200);
    await waitFor(async () => (await chat(second, 'guarded', 'one two three four five')).status === 200);
  });

  it('resolves names in inline configs, and refuses an unknown one with a hint', async () => {
    const inline = (name: string) => JSON.stringify({ ...target(), input_guardrails: [name] });
    expect((await chat(api, inline('short'), 'a b c d e f g h i j k l')).status).toBe(446);
    const unknown = await chat(api, inline('shortt'), 'hi');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.errors).toEqual([expect.objectContaining({ code: 'CFG_UNKNOWN_GUARDRAIL', pointer: '/input_guardrails/0', hint: 'did you mean "short"?' })]);
  });

  it('will not delete a guardrail a saved config names, nor change a file guardrail', async () => {
    const inUse = await api.call('DELETE', '/v1/guardrails/short');
    expect(inUse.status).toBe(409);
    expect(inUse.body.error).toMatchObject({ code: 'guardrail_in_use', configs: ['guarded'] });
    expect((await api.call('PUT', '/v1/guardrails/from-file', { body: SHORT })).body.error.code).toBe('guardrail_read_only');
    expect((await api.call('DELETE', '/v1/guardrails/from-file')).body.error.code).toBe('guardrail_read_only');
    expect((await api.call('DELETE', '/v1/configs/guarded')).status).toBe(200);
    const deleted = await api.call('DELETE', '/v1/guardrails/short');
    expect(deleted.body).toEqual({ id: 'short', object: 'guardrail', deleted: true });
    expect((await api.call('GET', '/v1/guardrails/short')).status).toBe(404);
  });
});

describe('serve start with named guardrails', () => {
  it('refuses to start when a config file names no known guardrail, or a guardrail file is invalid, located', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-guardrails-start-'));
    try {
      await mkdir(join(dir, 'configs'));
      await mkdir(join(dir, 'guardrails'));
      await writeFile(join(dir, 'configs', 'named.json'), '{\n  "virtual_key": "v",\n  "input_guardrails": ["missing"]\n}');
      await expect(startApiGateway('sqlite', { configsDir: join(dir, 'configs'), guardrailsDir: join(dir, 'guardrails') })).rejects.toThrow(/named\.json:3:\d+ CFG_UNKNOWN_GUARDRAIL \/input_guardrails\/0/);
      await writeFile(join(dir, 'guardrails', 'missing.json'), '{\n  "checks": [],\n  "deny": true\n}');
      await expect(startApiGateway('sqlite', { configsDir: join(dir, 'configs'), guardrailsDir: join(dir, 'guardrails') })).rejects.toThrow(/guardrails\/missing\.json:2:\d+ CFG_SCHEMA_VIOLATION \/checks/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
