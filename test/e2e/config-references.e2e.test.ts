// What a saved config names must exist while the config does, on serve's own wiring: a config saved
// through the API that calls a virtual key, an @slug or a prompt that is not stored is refused (it
// would fail every request), and a key or prompt that saved configs (files or API) use cannot be
// deleted, nor a slug they call renamed.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveConfigs, type ServedConfigs } from './serve-in-process.ts';

const ADMIN = 'gw-config-references-admin';
let served: ServedConfigs;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${served.gateway.url}${path}`, {
    method,
    headers: { 'x-gateway-api-key': ADMIN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  // A config file that calls @filed: files are not checked against the store (the key may come later).
  served = await serveConfigs('config-references', ADMIN, { 'file-config': { provider: '@filed', retry: { attempts: 1 } } });
});
afterAll(() => served?.close());

it('refuses a saved config that calls a virtual key or slug not stored, and takes it once they are', async () => {
  for (const [config, code] of [
    [{ virtual_key: 'vk-missing' }, 'unknown_virtual_key'],
    [{ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'k' }, { provider: '@missing', retry: { attempts: 1 } }] }, 'unknown_provider_slug'],
  ] as const) {
    const refused = await call('POST', '/v1/configs', { id: 'dangling', config });
    expect(refused.status, code).toBe(400);
    expect(refused.body.error).toMatchObject({ code, param: '/config' });
  }
  expect((await call('GET', '/v1/configs/dangling')).status).toBe(404);
  const key = await call('POST', '/v1/virtual-keys', { provider: 'openai', api_key: 'sk-stored-1', slug: 'team' });
  expect(key.status).toBe(200);
  // Options beside a key that only another family reads would have no effect: refused when saved, and per request (files, inline).
  for (const config of [{ virtual_key: key.body.id, cloudb_region: 'us-central1' }, { provider: '@team', cloudc_region: 'us-east-1', retry: { attempts: 1 } }]) {
    const refused = await call('POST', '/v1/configs', { id: 'other-family', config });
    expect(refused.status, JSON.stringify(config)).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_provider_option', param: '/config' });
    expect(refused.body.error.message).toContain('which calls vendor');
    const res = await fetch(`${served.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'content-type': 'application/json', 'x-gateway-config': JSON.stringify(config) },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'invalid_provider_option', param: Object.keys(config).find((k) => k.endsWith('_region')) });
  }
  expect((await call('POST', '/v1/configs', { id: 'by-id', config: { virtual_key: key.body.id } })).status).toBe(200);
  expect((await call('POST', '/v1/configs', { id: 'by-slug', config: { provider: '@team', retry: { attempts: 1 } } })).status).toBe(200);
});

it('refuses x-gateway-custom-host where every target has a host of its own, its virtual key\'s included', async () => {
  const key = await call('POST', '/v1/virtual-keys', { provider: 'openai', api_key: 'sk-stored-3', custom_host: 'http://127.0.0.1:9/v1' });
  expect(key.status).toBe(200);
  const send = (config: unknown) =>
    fetch(`${served.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'content-type': 'application/json', 'x-gateway-config': JSON.stringify(config), 'x-gateway-custom-host': 'http://127.0.0.1:8/v1' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
  const refused = await send({ virtual_key: key.body.id });
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'invalid_header', param: 'x-gateway-custom-host' });
  // Beside a target that reads it, the header is taken (that target's call fails: nothing listens there).
  const taken = await send({ strategy: { mode: 'fallback' }, targets: [{ virtual_key: key.body.id }, { provider: 'openai', api_key: 'sk-x' }] });
  expect(((await taken.json()) as { error: { code: string } }).error.code).toBe('provider_unreachable');
});

it('refuses a provider-option header no target reads, with virtual keys\' providers and options known per request', async () => {
  const vendor = await call('POST', '/v1/virtual-keys', { provider: 'openai', api_key: 'sk-stored-4', custom_host: 'http://127.0.0.1:9/v1' });
  const cloudb = await call('POST', '/v1/virtual-keys', { provider: 'cloudb', api_key: 'ya29.stored', cloudb_region: 'us-central1', custom_host: 'http://127.0.0.1:9/v1' });
  expect([vendor.status, cloudb.status]).toEqual([200, 200]);
  const send = (config: unknown, headers: Record<string, string>) =>
    fetch(`${served.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'content-type': 'application/json', 'x-gateway-config': JSON.stringify(config), ...headers },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
  const region = { 'x-gateway-cloudb-region': 'europe-west4' };
  const project = { 'x-gateway-cloudb-project-id': 'from-header' };
  const both = { strategy: { mode: 'fallback' }, targets: [{ virtual_key: vendor.body.id }, { virtual_key: cloudb.body.id }] };
  const ownRegion = { provider: 'cloudb', api_key: 'ya29.own', cloudb_region: 'us-central1', custom_host: 'http://127.0.0.1:9/v1' };
  for (const [config, headers, message] of [
    // No target of the header's family: the vendor key's.
    [{ virtual_key: vendor.body.id }, region, 'no target of this route is one (vendor)'],
    // Every target of its family sets the option itself: the cloud B key's region, a config's own region, wins.
    [{ virtual_key: cloudb.body.id }, region, 'sets cloudb_region itself'],
    [both, region, 'sets cloudb_region itself'],
    [ownRegion, region, 'sets cloudb_region itself'],
  ] as const) {
    const refused = await send(config, headers);
    expect(refused.status, JSON.stringify(config)).toBe(400);
    const { error } = (await refused.json()) as { error: { code: string; param: string; message: string } };
    expect(error).toMatchObject({ code: 'invalid_header', param: Object.keys(headers)[0] });
    expect(error.message).toContain(message);
  }
  // An option the cloud B target leaves open is the header's (its call fails: nothing listens there).
  for (const config of [both, { virtual_key: cloudb.body.id }, ownRegion]) {
    const taken = await send(config, project);
    expect(((await taken.json()) as { error: { code: string } }).error.code, JSON.stringify(config)).toBe('provider_unreachable');
  }
});

it('keeps a virtual key and its slug while saved configs call them, files included', async () => {
  const key = await call('POST', '/v1/virtual-keys', { provider: 'openai', api_key: 'sk-stored-2', slug: 'filed' });
  expect(key.status).toBe(200);
  const deleted = await call('DELETE', `/v1/virtual-keys/${key.body.id}`);
  expect(deleted.status).toBe(409);
  expect(deleted.body.error).toMatchObject({ code: 'virtual_key_in_use', param: 'virtualKeyId', configs: ['file-config'] });
  for (const slug of ['renamed', null]) {
    const renamed = await call('PUT', `/v1/virtual-keys/${key.body.id}`, { slug });
    expect(renamed.status, String(slug)).toBe(409);
    expect(renamed.body.error.configs).toEqual(['file-config']);
  }
  // A change that leaves the slug is free.
  expect((await call('PUT', `/v1/virtual-keys/${key.body.id}`, { name: 'renamed only in name' })).status).toBe(200);

  const team = (await call('GET', '/v1/virtual-keys')).body.data.find((k: { slug: string | null }) => k.slug === 'team');
  const inUse = await call('DELETE', `/v1/virtual-keys/${team.id}`);
  expect(inUse.body.error).toMatchObject({ code: 'virtual_key_in_use', configs: ['by-id', 'by-slug'] });
  for (const id of ['by-id', 'by-slug']) expect((await call('DELETE', `/v1/configs/${id}`)).status).toBe(200);
  expect((await call('DELETE', `/v1/virtual-keys/${team.id}`)).status).toBe(200);
});
