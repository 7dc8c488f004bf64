// Virtual keys end to end: CRUD under /v1/virtual-keys (admin scope, secrets never returned),
// referenced by `virtual_key`, `x-gateway-virtual-key` and `@slug`, sealed with AES-256-GCM at rest,
// held in memory (changes reach requests at once), surviving a restart with the same master key
// and refusing to start with another.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPTION_FAMILY, PROVIDERS } from '../../compiler/config/providers.ts';
import { setupVirtualKeys } from '../../runtime/api/virtual-keys/index.ts';
import { setupInference } from '../../runtime/inference/index.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { startGateway, type RunningGateway } from '../../runtime/server/start.ts';
import { SQLITE_FILE_NAME } from '../../runtime/store/sqlite/database.ts';
import { fingerprint, masterKeyFrom } from '../../runtime/store/master-key.ts';
import { seal } from '../../runtime/store/secret-box.ts';
import { startCloudcMock, CLOUDC_ACCESS_KEY_ID, CLOUDC_REGION, CLOUDC_SECRET_ACCESS_KEY } from '../mocks/cloudc/index.ts';
import type { MockServer } from '../mocks/http/mock-server.ts';
import { startMessagesMock, MESSAGES_MOCK_KEY } from '../mocks/messages/index.ts';

const ADMIN = 'gw-vk-admin-key';

let dir: string;
let gateway: RunningGateway;
let messages: MockServer;
let cloudc: MockServer;

async function start(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<RunningGateway> {
  return startGateway({
    port: 0,
    dataDir,
    seedApiKey: ADMIN,
    logger: silentLogger,
    setup: async (setup) => {
      const resolver = await setupInference(setup, { settings: { retryBaseMs: 1, retryMaxMs: 10, inlineConfigCacheSize: 50 } });
      await setupVirtualKeys(setup, resolver, { env });
    },
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gateway-vk-'));
  [messages, cloudc] = await Promise.all([startMessagesMock({ label: 'vk-messages' }), startCloudcMock({ label: 'vk-cloudc' })]);
  gateway = await start(join(dir, 'data'));
});
afterAll(async () => {
  await gateway.close();
  await Promise.all([messages.close(), cloudc.close()]);
  await rm(dir, { recursive: true, force: true });
});

function api(method: string, path: string, body?: unknown, key = ADMIN, target = gateway): Promise<Response> {
  return fetch(`${target.url}${path}`, {
    method,
    headers: { 'x-gateway-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function created(body: unknown): Promise<Record<string, any>> {
  const res = await api('POST', '/v1/virtual-keys', body);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
}

function sdk(headers: Record<string, string>, target = gateway): OpenAI {
  return new OpenAI({ baseURL: `${target.url}/v1`, apiKey: 'no-provider-key-here', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': ADMIN, ...headers } });
}

const chat = (content: string) => ({ model: 'claude-mock-1', messages: [{ role: 'user' as const, content }] });

describe('the virtual-keys API', () => {
  it('creates a key and never returns its secrets, only their names and a hint', async () => {
    const key = await created({ provider: 'anthropic', name: 'Claude prod', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL });
    expect(key).toMatchObject({
      id: expect.stringMatching(/^vk-[a-z0-9]+$/),
      object: 'virtual_key',
      name: 'Claude prod',
      slug: null,
      provider: 'anthropic',
      options: { custom_host: messages.baseURL },
      secrets: ['api_key'],
      key_hint: `${MESSAGES_MOCK_KEY.slice(0, 3)}…${MESSAGES_MOCK_KEY.slice(-4)}`,
      version: 1,
    });
    for (const res of [await api('GET', `/v1/virtual-keys/${key.id}`), await api('GET', '/v1/virtual-keys')]) {
      expect(res.status).toBe(200);
      expect(await res.text()).not.toContain(MESSAGES_MOCK_KEY);
    }
  });

  it('lists keys oldest first with a total and pages', async () => {
    await created({ provider: 'groq', api_key: 'gsk_list_test_0000000' });
    const all = (await (await api('GET', '/v1/virtual-keys')).json()) as { object: string; data: { id: string }[]; total: number };
    expect(all.object).toBe('list');
    expect(all.total).toBe(all.data.length);
    const page = (await (await api('GET', '/v1/virtual-keys?page_size=1&current_page=1')).json()) as { data: { id: string }[]; total: number };
    expect(page.data.map((k) => k.id)).toEqual([all.data[1].id]);
    expect(page.total).toBe(all.total);
  });

  it('refuses bad bodies with the field named, slug clashes with 409, inference keys with 403', async () => {
    const bad = async (body: unknown, param: string) => {
      const res = await api('POST', '/v1/virtual-keys', body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'invalid_request_body', param });
    };
    await bad({ api_key: 'k' }, '/provider');
    await bad({ provider: 'nope', api_key: 'k' }, '/provider');
    await bad({ provider: 'anthropic', api_key: 'k', mystery: 1 }, '/mystery');
    await bad({ provider: 'anthropic', api_key: 'k', slug: 'Bad Slug' }, '/slug');
    await bad({ provider: 'cloudc', cloudc_region: 7 }, '/cloudc_region');
    // What is sent in a header must be what a header can carry: a key read from a file keeps its newline.
    await bad({ provider: 'anthropic', api_key: 'sk-ant-0123456789\n' }, '/api_key');
    await bad({ provider: 'anthropic', api_key: 'sk-日本' }, '/api_key');
    await bad({ provider: 'cloudc', cloudc_region: 'us-east-1', cloudc_session_token: 'tok\r\nx-evil: 1' }, '/cloudc_session_token');
    const account = await api('POST', '/v1/virtual-keys', { provider: 'cloudb', cloudb_service_account_json: { client_email: 'x@y' } });
    expect(((await account.json()) as { error: { code: string } }).error.code).toBe('invalid_provider_option');
    await created({ provider: 'anthropic', api_key: 'k-one', slug: 'taken' });
    const clash = await api('POST', '/v1/virtual-keys', { provider: 'anthropic', api_key: 'k-two', slug: 'taken' });
    expect(clash.status).toBe(409);
    const { key: inference } = await gateway.store.apiKeys.create({ scope: 'inference' });
    await gateway.keys.reload();
    expect((await api('GET', '/v1/virtual-keys', undefined, inference)).status).toBe(403);
    expect((await api('GET', '/v1/virtual-keys/vk-nope')).status).toBe(404);
  });

  it('refuses a provider option only another family reads, on create and when an update changes the provider', async () => {
    const sample = { string: 'x', array: ['x'], object: { x: 'y' } } as const;
    const { OPTION_FIELDS } = await import('../../runtime/api/virtual-keys/fields.ts');
    for (const [option, reader] of OPTION_FAMILY) {
      for (const provider of PROVIDERS.filter((p) => p.family !== reader)) {
        const res = await api('POST', '/v1/virtual-keys', { provider: provider.name, api_key: 'k', [option]: sample[OPTION_FIELDS[option] as keyof typeof sample] });
        const { error } = (await res.json()) as { error: { code: string; param: string; message: string } };
        expect(res.status, `${option} on ${provider.name}`).toBe(400);
        expect(error).toMatchObject({ code: 'invalid_request_body', param: `/${option}` });
        expect(error.message).toContain(`Only ${reader} providers read ${option}`);
      }
    }
    const key = await created({ provider: 'cloudc', api_key: 'k', cloudc_region: 'eu-west-1' });
    const moved = await api('PUT', `/v1/virtual-keys/${key.id}`, { provider: 'openai' });
    expect(moved.status).toBe(400);
    expect(((await moved.json()) as { error: { param: string } }).error.param).toBe('/cloudc_region');
    const cleared = await api('PUT', `/v1/virtual-keys/${key.id}`, { provider: 'openai', cloudc_region: null });
    expect(cleared.status).toBe(200);
    expect(((await cleared.json()) as { options: object }).options).toEqual({});
  });

  it('refuses an option its provider never reads beside the key\'s others, and keeps one a config may complete', async () => {
    for (const [body, param] of [
      [{ provider: 'clouda', api_key: 'k', resource_name: 'r', clouda_resource_name: 'r2' }, '/resource_name'],
      [{ provider: 'clouda', api_key: 'k', clouda_deployment_type: 'serverless', clouda_deployment_name: 'd', clouda_region: 'eastus', deployment_id: 'x' }, '/deployment_id'],
      [{ provider: 'cloudc', api_key: 'k', cloudc_region: 'us-east-1', cloudc_access_key_id: 'AKID', cloudc_secret_access_key: 's' }, '/api_key'],
    ] as const) {
      const res = await api('POST', '/v1/virtual-keys', body);
      expect(res.status, param).toBe(400);
      expect(((await res.json()) as { error: { code: string; param: string; message: string } }).error).toMatchObject({ code: 'invalid_request_body', param, message: expect.stringContaining('would have no effect') });
    }
    // A config beside the key may set clouda_deployment_type, which makes the key's region read.
    await created({ provider: 'clouda', api_key: 'k', clouda_region: 'eastus', clouda_deployment_name: 'd' });
    // An update that leaves an unread option beside a new one is refused; removing it (null) is taken.
    const key = await created({ provider: 'clouda', api_key: 'k', resource_name: 'r', deployment_id: 'd' });
    expect((await api('PUT', `/v1/virtual-keys/${key.id}`, { clouda_resource_name: 'r2' })).status).toBe(400);
    expect((await api('PUT', `/v1/virtual-keys/${key.id}`, { clouda_resource_name: 'r2', resource_name: null })).status).toBe(200);
  });

  it('refuses a custom_host that is a metadata address or name when the key is saved, not only when it is used', async () => {
    for (const host of ['http://169.254.169.254/v1', 'http://[::169.254.169.254]/v1', 'http://metadata.google.internal/v1']) {
      const res = await api('POST', '/v1/virtual-keys', { provider: 'openai', api_key: 'k', custom_host: host });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'custom_host_not_allowed', param: '/custom_host' });
    }
  });
});

describe('using virtual keys and slugs', () => {
  it('routes by `virtual_key` in a config, with the stored credential and options', async () => {
    const key = await created({ provider: 'anthropic', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL });
    const data = await sdk({ 'x-gateway-config': JSON.stringify({ virtual_key: key.id }) }).chat.completions.create(chat('stored key'));
    expect(data.choices[0].message.content).toBe('[vk-messages] stored key');
    expect(messages.requests.at(-1)!.headers['x-api-key']).toBe(MESSAGES_MOCK_KEY);
  });

  it('routes by x-gateway-virtual-key under a config that names no provider', async () => {
    const key = await created({ provider: 'anthropic', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL });
    const data = await sdk({ 'x-gateway-config': JSON.stringify({ retry: { attempts: 1 } }), 'x-gateway-virtual-key': key.id }).chat.completions.create(chat('by header'));
    expect(data.choices[0].message.content).toBe('[vk-messages] by header');
  });

  it('routes by x-gateway-virtual-key alone, and names the stored provider in x-gateway-provider', async () => {
    const key = await created({ provider: 'anthropic', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL });
    const { data, response } = await sdk({ 'x-gateway-virtual-key': key.id }).chat.completions.create(chat('header only')).withResponse();
    expect(data.choices[0].message.content).toBe('[vk-messages] header only');
    expect(response.headers.get('x-gateway-provider')).toBe('anthropic');
  });

  it('resolves @slug to the stored integration, with its provider options (signed cloud C call)', async () => {
    await created({
      provider: 'cloudc', slug: 'cloudc-prod', custom_host: cloudc.url,
      cloudc_access_key_id: CLOUDC_ACCESS_KEY_ID, cloudc_secret_access_key: CLOUDC_SECRET_ACCESS_KEY, cloudc_region: CLOUDC_REGION,
    });
    const data = await sdk({ 'x-gateway-provider': '@cloudc-prod' }).chat.completions.create(chat('by slug'));
    expect(data.choices[0].message.content).toBe('[vk-cloudc] by slug');
    expect(String(cloudc.requests.at(-1)!.headers.authorization)).toContain(`Credential=${CLOUDC_ACCESS_KEY_ID}/`);
  });

  it('takes updates and deletions into account on the very next request, without a database read per request', async () => {
    const key = await created({ provider: 'anthropic', slug: 'rotating', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL });
    const client = sdk({ 'x-gateway-provider': '@rotating' });
    expect((await client.chat.completions.create(chat('one'))).choices[0].message.content).toBe('[vk-messages] one');

    const rotated = await api('PUT', `/v1/virtual-keys/${key.id}`, { api_key: 'sk-ant-revoked-00000' });
    expect(((await rotated.json()) as { version: number }).version).toBe(2);
    const refused = (await client.chat.completions.create(chat('two')).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(refused.status).toBe(401);
    expect(refused.error).toMatchObject({ provider: 'anthropic' });

    await api('PUT', `/v1/virtual-keys/${key.id}`, { api_key: MESSAGES_MOCK_KEY, slug: 'renamed' });
    expect((await sdk({ 'x-gateway-provider': '@renamed' }).chat.completions.create(chat('three'))).choices[0].message.content).toBe('[vk-messages] three');
    const oldSlug = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-provider': '@rotating', 'content-type': 'application/json' }, body: JSON.stringify(chat('x')) });
    expect(oldSlug.status).toBe(400);
    expect(((await oldSlug.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'unknown_provider_slug', message: expect.stringContaining('@rotating') });
    // A slug sent where a key's ID goes: the error says how a slug is named.
    const slugAsKey = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-virtual-key': 'renamed', 'content-type': 'application/json' }, body: JSON.stringify(chat('x')) });
    expect(((await slugAsKey.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'unknown_virtual_key', message: expect.stringContaining('"@renamed"') });

    const deleted = await api('DELETE', `/v1/virtual-keys/${key.id}`);
    expect(await deleted.json()).toEqual({ id: key.id, object: 'virtual_key', deleted: true });
    const gone = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': JSON.stringify({ virtual_key: key.id }), 'content-type': 'application/json' }, body: JSON.stringify(chat('x')) });
    expect(gone.status).toBe(400);
    expect(((await gone.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'unknown_virtual_key', message: expect.stringContaining(key.id) });
  });
});

describe('at rest', () => {
  it('stores the credential sealed, never in the clear, under a generated master key file of mode 0600', async () => {
    const key = await created({ provider: 'cloudc', cloudc_access_key_id: 'AKIASEALED000001', cloudc_secret_access_key: 'very-secret-value-123', cloudc_region: 'us-east-1', cloudc_session_token: 'session-token-should-not-appear' });
    const db = new DatabaseSync(join(dir, 'data', SQLITE_FILE_NAME), { readOnly: true });
    try {
      const row = db.prepare('SELECT * FROM virtual_keys WHERE id = ?').get(key.id) as Record<string, string>;
      const text = JSON.stringify(row);
      for (const secret of ['AKIASEALED000001', 'very-secret-value-123', 'session-token-should-not-appear']) expect(text).not.toContain(secret);
      expect(row.sealed).toMatch(/^v1:[0-9a-f]{8}:[\w-]+:[\w-]+:[\w-]+$/);
      expect(JSON.parse(row.options)).toEqual({ cloudc_region: 'us-east-1' });
    } finally {
      db.close();
    }
    const file = join(dir, 'data', 'master.key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(Buffer.from((await readFile(file, 'utf8')).trim(), 'base64')).toHaveLength(32);
  });

  it('answers 400 naming a key stored before credentials were checked whose api_key no header can carry (it was a 500 on every call)', async () => {
    const storedDir = join(dir, 'stored-before');
    const env = { GATEWAY_MASTER_KEY: Buffer.alloc(32, 5).toString('base64') };
    const first = await start(storedDir, env);
    const res = await api('POST', '/v1/virtual-keys', { provider: 'anthropic', slug: 'from-file', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL }, ADMIN, first);
    const key = (await res.json()) as { id: string };
    await first.close();
    // What an older gateway stored: the key as read from a file, its newline kept.
    const master = { key: masterKeyFrom(env.GATEWAY_MASTER_KEY, 'test'), id: fingerprint(masterKeyFrom(env.GATEWAY_MASTER_KEY, 'test')), source: 'env' as const };
    const db = new DatabaseSync(join(storedDir, SQLITE_FILE_NAME));
    try {
      db.prepare('UPDATE virtual_keys SET sealed = ? WHERE id = ?').run(seal(master, key.id, { api_key: `${MESSAGES_MOCK_KEY}\n` }), key.id);
    } finally {
      db.close();
    }
    const second = await start(storedDir, env);
    try {
      for (const headers of [{ 'x-gateway-provider': '@from-file' }, { 'x-gateway-virtual-key': key.id }]) {
        const answer = await fetch(`${second.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'x-gateway-api-key': ADMIN, 'content-type': 'application/json', ...headers },
          body: JSON.stringify(chat('stored before')),
        });
        expect(answer.status).toBe(400);
        const { error } = (await answer.json()) as { error: { code: string; message: string } };
        expect(error.code).toBe('invalid_provider_option');
        expect(error.message).toContain('api_key holds a line break');
        expect(error.message).toContain(`PUT /v1/virtual-keys/${key.id}`);
        expect(error.message).not.toContain(MESSAGES_MOCK_KEY);
      }
      // Stored again through the API, corrected, it is used at once.
      const fixed = await api('PUT', `/v1/virtual-keys/${key.id}`, { api_key: MESSAGES_MOCK_KEY }, ADMIN, second);
      expect(fixed.status).toBe(200);
      const data = await sdk({ 'x-gateway-provider': '@from-file' }, second).chat.completions.create(chat('fixed'));
      expect(data.choices[0].message.content).toBe('[vk-messages] fixed');
    } finally {
      await second.close();
    }
  });

  it('serves stored keys after a restart with the same master key, and refuses to start with another', async () => {
    const restartDir = join(dir, 'restart');
    const env = { GATEWAY_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') };
    const first = await start(restartDir, env);
    const res = await api('POST', '/v1/virtual-keys', { provider: 'anthropic', slug: 'durable', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL }, ADMIN, first);
    expect(res.status).toBe(200);
    await first.close();
    const second = await start(restartDir, env);
    try {
      const data = await sdk({ 'x-gateway-provider': '@durable' }, second).chat.completions.create(chat('after restart'));
      expect(data.choices[0].message.content).toBe('[vk-messages] after restart');
    } finally {
      await second.close();
    }
    await expect(start(restartDir, { GATEWAY_MASTER_KEY: Buffer.alloc(32, 9).toString('hex') })).rejects.toThrow(/cannot be opened: sealed with master key [0-9a-f]{8}, but this gateway has key [0-9a-f]{8}/);
  });
});
