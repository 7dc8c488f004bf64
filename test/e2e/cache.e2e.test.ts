// The response cache end to end: the real server with its saved configs, the official SDK, and the
// vendor mock counting what reached the provider.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../runtime/server/start.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { until } from '../jobs/harness.ts';
import { type ServedConfigs, serveConfigs } from './serve-in-process.ts';

const ADMIN = 'gw_cache-e2e-admin-key-0123456789abcdef';

describe('response cache', () => {
  let gateway: RunningGateway;
  let mock: VendorMock;
  let served: ServedConfigs;

  beforeAll(async () => {
    mock = await startVendorMock({ label: 'cache' });
    const target = { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL };
    served = await serveConfigs('cache', ADMIN, {
      cached: { ...target, cache: { mode: 'simple', max_age: 60 } },
      brief: { ...target, cache: { mode: 'simple', max_age: 1 } },
      plain: target,
      'cached-guarded': { ...target, cache: { mode: 'simple', max_age: 60 }, input_guardrails: [{ id: 'short', deny: true, 'default.wordCount': { minWords: 1, maxWords: 3 } }] },
      'target-cached': {
        strategy: { mode: 'fallback' },
        targets: [{ ...target, cache: { mode: 'simple' }, override_params: { model: 'gpt-4o' } }, { ...target, override_params: { model: 'gpt-4o-mini' } }],
      },
    }, { storePollMs: 50 });
    gateway = served.gateway;
  });
  afterAll(async () => {
    await served?.close();
    await mock?.close();
  });

  function client(config: string, headers: Record<string, string> = {}): OpenAI {
    return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: VENDOR_MOCK_KEY, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': config, ...headers } });
  }

  async function ask(sdk: OpenAI, content: string, extra: Record<string, unknown> = {}) {
    const { data, response } = await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], ...extra } as any).withResponse();
    return { body: data as any, headers: response.headers };
  }

  function reached(content: string): number {
    return mock.requests.filter((r) => JSON.stringify(r.json ?? null).includes(content)).length;
  }

  it('answers a repeat from the cache: HIT, the same body, its own trace id, the provider asked once', async () => {
    const sdk = client('cached');
    const first = await ask(sdk, 'simple repeat one');
    const second = await ask(sdk, 'simple repeat one');
    expect(first.headers.get('x-gateway-cache-status')).toBe('MISS');
    expect(second.headers.get('x-gateway-cache-status')).toBe('HIT');
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('x-gateway-trace-id')).not.toBe(first.headers.get('x-gateway-trace-id'));
    expect(second.headers.get('x-gateway-last-used-option-index')).toBe('config');
    expect(second.headers.get('content-type')).toContain('application/json');
    expect(Number(second.headers.get('age'))).toBeGreaterThanOrEqual(0);
    expect(reached('simple repeat one')).toBe(1);
    // Key order and whitespace of the body are not part of the key; a changed parameter is.
    const reordered = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'cached', authorization: `Bearer ${VENDOR_MOCK_KEY}`, 'content-type': 'application/json' },
      body: '{ "messages": [ {"content": "simple repeat one", "role": "user"} ],\n  "model": "gpt-4o-mini" }',
    });
    expect(reordered.headers.get('x-gateway-cache-status')).toBe('HIT');
    expect((await ask(sdk, 'simple repeat one', { temperature: 0.5 })).headers.get('x-gateway-cache-status')).toBe('MISS');
    expect(reached('simple repeat one')).toBe(2);
  });

  it('serves a streamed request from the cache as an SSE stream the SDK reads to [DONE]', async () => {
    const sdk = client('cached');
    const read = async () => {
      const { data: stream, response } = await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'streamed words here' }], stream: true, stream_options: { include_usage: true } }).withResponse();
      let text = '';
      let usage = null;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      return { text, usage, status: response.headers.get('x-gateway-cache-status'), type: response.headers.get('content-type') };
    };
    const first = await read();
    const second = await read();
    expect(first.status).toBe('MISS');
    expect(second.status).toBe('HIT');
    expect(second.type).toContain('text/event-stream');
    expect(second.text).toBe(first.text);
    expect(second.text).toContain('streamed words here');
    expect(second.usage).toEqual(first.usage);
    expect(reached('streamed words here')).toBe(1);
    // A non-streamed request of the same messages is another entry.
    expect((await ask(sdk, 'streamed words here')).headers.get('x-gateway-cache-status')).toBe('MISS');
  });

  it('never stores a stream that broke off, or an error answer', async () => {
    const sdk = client('cached');
    mock.script({ path: '/v1/chat/completions', breakAfter: 2 });
    const broken = await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'broken stream text' }], stream: true });
    await expect((async () => {
      for await (const _ of broken);
    })()).rejects.toThrow();
    const again = await ask(sdk, 'broken stream text', { stream: false });
    expect(again.headers.get('x-gateway-cache-status')).toBe('MISS');

    mock.script({ path: '/v1/chat/completions', status: 500 });
    const failed = await ask(sdk, 'server error text').catch((error) => error);
    expect(failed.status).toBe(500);
    expect(failed.headers.get('x-gateway-cache-status')).toBe('MISS');
    expect((await ask(sdk, 'server error text')).headers.get('x-gateway-cache-status')).toBe('MISS');
    expect((await ask(sdk, 'server error text')).headers.get('x-gateway-cache-status')).toBe('HIT');

    // An error dressed as a success (some proxies answer 200 with an error object): the error it is (server_error: 500), never stored.
    mock.script({ path: '/v1/chat/completions', body: JSON.stringify({ error: { message: 'The server is overloaded.', type: 'server_error', code: null } }) });
    const dressed = await ask(sdk, 'error dressed as success').catch((error) => error);
    expect(dressed.status).toBe(500);
    expect(dressed.error.message).toBe('The server is overloaded.');
    expect(dressed.headers.get('x-gateway-cache-status')).toBe('MISS');
    const retried = await ask(sdk, 'error dressed as success');
    expect(retried.headers.get('x-gateway-cache-status')).toBe('MISS');
    expect(retried.body.choices[0].message.content).toContain('dressed');
  });

  it('force refresh asks the provider again and stores the new answer', async () => {
    const first = await ask(client('cached'), 'refresh me');
    const refreshed = await ask(client('cached', { 'x-gateway-cache-force-refresh': 'true' }), 'refresh me');
    expect(refreshed.headers.get('x-gateway-cache-status')).toBe('REFRESH');
    expect(refreshed.body.id).not.toBe(first.body.id);
    const after = await ask(client('cached'), 'refresh me');
    expect(after.headers.get('x-gateway-cache-status')).toBe('HIT');
    expect(after.body.id).toBe(refreshed.body.id);
    expect(reached('refresh me')).toBe(2);
  });

  it('keys on metadata, unless a namespace replaces it', async () => {
    const tagged = (user: string, headers: Record<string, string> = {}) => client('cached', { 'x-gateway-metadata': JSON.stringify({ user }), ...headers });
    await ask(tagged('ann'), 'metadata keyed');
    expect((await ask(tagged('bob'), 'metadata keyed')).headers.get('x-gateway-cache-status')).toBe('MISS');
    expect((await ask(tagged('ann'), 'metadata keyed')).headers.get('x-gateway-cache-status')).toBe('HIT');
    await ask(tagged('ann', { 'x-gateway-cache-namespace': 'shared' }), 'metadata keyed');
    expect((await ask(tagged('bob', { 'x-gateway-cache-namespace': 'shared' }), 'metadata keyed')).headers.get('x-gateway-cache-status')).toBe('HIT');
    expect((await ask(tagged('bob', { 'x-gateway-cache-namespace': 'other' }), 'metadata keyed')).headers.get('x-gateway-cache-status')).toBe('MISS');
  });

  it('keys on the provider-option headers, which pick what the provider runs', async () => {
    const org = (name: string) => client('cached', { 'x-gateway-vendor-organization': name });
    expect((await ask(org('org-a'), 'option keyed')).headers.get('x-gateway-cache-status')).toBe('MISS');
    expect((await ask(org('org-b'), 'option keyed')).headers.get('x-gateway-cache-status')).toBe('MISS');
    expect((await ask(org('org-a'), 'option keyed')).headers.get('x-gateway-cache-status')).toBe('HIT');
    expect((await ask(client('cached'), 'option keyed')).headers.get('x-gateway-cache-status')).toBe('MISS');
    expect(reached('option keyed')).toBe(3);
  });

  it('expires entries after max_age', async () => {
    await ask(client('brief'), 'short lived');
    expect((await ask(client('brief'), 'short lived')).headers.get('x-gateway-cache-status')).toBe('HIT');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await ask(client('brief'), 'short lived')).headers.get('x-gateway-cache-status')).toBe('MISS');
    expect(reached('short lived')).toBe(2);
  });

  it('says DISABLED on a route without a cache, and on endpoints a cached route does not cache', async () => {
    const sdk = client('plain');
    expect((await ask(sdk, 'not cached')).headers.get('x-gateway-cache-status')).toBe('DISABLED');
    expect((await ask(sdk, 'not cached')).headers.get('x-gateway-cache-status')).toBe('DISABLED');
    expect(reached('not cached')).toBe(2);
    const models = await fetch(`${gateway.url}/v1/models`, { headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'cached', authorization: `Bearer ${VENDOR_MOCK_KEY}` } });
    expect(models.status).toBe(200);
    expect(models.headers.get('x-gateway-cache-status')).toBe('DISABLED');
  });

  it('says DISABLED on a request of a cached route refused before the lookup, in the header and the log', async () => {
    const sdk = client('cached-guarded', { 'x-gateway-metadata': JSON.stringify({ case: 'refused-before-cache' }) });
    expect((await ask(sdk, 'cached and allowed')).headers.get('x-gateway-cache-status')).toBe('MISS');
    const refused = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'cached-guarded', 'x-gateway-metadata': JSON.stringify({ case: 'refused-before-cache' }), authorization: `Bearer ${VENDOR_MOCK_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'far too many words for this route' }] }),
    });
    expect(refused.status).toBe(446);
    expect(refused.headers.get('x-gateway-cache-status')).toBe('DISABLED');
    expect(reached('far too many words')).toBe(0);
    const logs = async () => (await (await fetch(`${gateway.url}/v1/logs?metadata.case=refused-before-cache`, { headers: { 'x-gateway-api-key': ADMIN } })).json() as any).data as any[];
    const [denied, allowed] = await until(logs, (records) => records.length === 2, 10_000, 'two log records');
    expect(allowed.cache_status).toBe('MISS');
    expect(denied.status).toBe(446);
    expect(denied.cache_status).toBe('DISABLED');
  });

  it('caches embeddings', async () => {
    const sdk = client('cached');
    const first = await sdk.embeddings.create({ model: 'text-embedding-3-small', input: 'embed me once' }).withResponse();
    const second = await sdk.embeddings.create({ model: 'text-embedding-3-small', input: 'embed me once' }).withResponse();
    expect(first.response.headers.get('x-gateway-cache-status')).toBe('MISS');
    expect(second.response.headers.get('x-gateway-cache-status')).toBe('HIT');
    expect(second.data.data[0].embedding).toEqual(first.data.data[0].embedding);
    expect(reached('embed me once')).toBe(1);
  });

  it('a cache set on a target wraps that target\'s tries, keyed by the target', async () => {
    const sdk = client('target-cached');
    const first = await ask(sdk, 'target level');
    const second = await ask(sdk, 'target level');
    expect(first.headers.get('x-gateway-cache-status')).toBe('MISS');
    expect(second.headers.get('x-gateway-cache-status')).toBe('HIT');
    expect(second.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[0]');
    expect(second.body.model).toBe('gpt-4o');
    expect(reached('target level')).toBe(1);
  });

  it('logs a hit with cache_status, zero cost and the cost it saved; /metrics counts it', async () => {
    const sdk = client('cached', { 'x-gateway-metadata': JSON.stringify({ case: 'logged-hit' }) });
    await ask(sdk, 'log the saving');
    await ask(sdk, 'log the saving');
    const logs = async () => (await (await fetch(`${gateway.url}/v1/logs?metadata.case=logged-hit`, { headers: { 'x-gateway-api-key': ADMIN } })).json() as any).data as any[];
    const [hit, miss] = await until(logs, (records) => records.length === 2, 10_000, 'two log records');
    expect(miss.cache_status).toBe('MISS');
    expect(miss.cost_usd).toBeGreaterThan(0);
    expect(hit.cache_status).toBe('HIT');
    expect(hit.cost_usd).toBe(0);
    expect(hit.saved_cost_usd).toBeCloseTo(miss.cost_usd, 12);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_cache_requests_total\{status="HIT"\} [1-9]/);
    expect(metrics).toMatch(/gateway_cache_stored_bytes_total [1-9]/);
    expect(metrics).toMatch(/gateway_cache_memory_entries [1-9]/);
  });

  it('refuses a semantic cache this gateway has no embeddings route for: 400 on an inline config and on saving one, no start with a saved one', async () => {
    const inline = JSON.stringify({ provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL, cache: { mode: 'semantic' } });
    const refused = await ask(client(inline), 'semantic without setting').catch((error) => error);
    expect(refused.status).toBe(400);
    expect(refused.error.code).toBe('semantic_cache_unavailable');
    expect(reached('semantic without setting')).toBe(0);

    // Saving one through the API is refused too: accepted, it would answer 400 and stop the next start.
    const nested = { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'k' }, { provider: 'openai', api_key: 'k', cache: { mode: 'semantic' } }] };
    const saved = await fetch(`${gateway.url}/v1/configs`, { method: 'POST', headers: { 'x-gateway-api-key': ADMIN, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'semantic-by-api', config: nested }) });
    expect(saved.status).toBe(400);
    const body = (await saved.json()) as any;
    expect(body.error).toMatchObject({ code: 'invalid_config', param: '/config' });
    expect(body.error.errors).toEqual([expect.objectContaining({ code: 'CFG_SEMANTIC_CACHE_NEEDS_SERVER', pointer: '/targets/1/cache/mode' })]);
    expect((await fetch(`${gateway.url}/v1/configs/semantic-by-api`, { headers: { 'x-gateway-api-key': ADMIN } })).status).toBe(404);

    const start = serveConfigs('cache-semantic', ADMIN, { nested: { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'k' }, { provider: 'openai', api_key: 'k', cache: { mode: 'semantic' } }] } });
    await expect(start).rejects.toThrow(/nested\.json:\d+:\d+ {2}CFG_SEMANTIC_CACHE_NEEDS_SERVER {2}\/targets\/1\/cache\/mode/);
  });

  it('DELETE /v1/cache purges by namespace (admin scope)', async () => {
    const spaced = client('cached', { 'x-gateway-cache-namespace': 'purge-me' });
    await ask(spaced, 'purge target');
    expect((await ask(spaced, 'purge target')).headers.get('x-gateway-cache-status')).toBe('HIT');
    const res = await fetch(`${gateway.url}/v1/cache?namespace=purge-me`, { method: 'DELETE', headers: { 'x-gateway-api-key': ADMIN } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ object: 'cache.purge', purged: 1, namespace: 'purge-me', config_id: null });
    expect((await ask(spaced, 'purge target')).headers.get('x-gateway-cache-status')).toBe('MISS');
    const byConfig = await fetch(`${gateway.url}/v1/cache?config_id=cached`, { method: 'DELETE', headers: { 'x-gateway-api-key': ADMIN } });
    expect(((await byConfig.json()) as any).purged).toBeGreaterThan(0);
    expect((await ask(client('cached'), 'simple repeat one')).headers.get('x-gateway-cache-status')).toBe('MISS');
  });
});
