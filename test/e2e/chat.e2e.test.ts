// The vendor SDK as the client, through the real gateway, to mock vendors: chat streamed and not,
// by provider headers, saved configs and inline configs, with the gateway headers checked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startE2E, target, VENDOR_MOCK_KEY, type E2E } from './harness.ts';

let e2e: E2E;

beforeAll(async () => {
  e2e = await startE2E({
    configs: {
      single: target(0),
      fallback: { strategy: { mode: 'fallback' }, targets: [target(0), target(1)] },
      'nested-fallback': {
        strategy: { mode: 'fallback', on_status_codes: [503] },
        targets: [target(0), { strategy: { mode: 'loadbalance' }, targets: [target(1, { weight: 1 }), target(0, { weight: 0 })] }],
      },
      conditional: {
        strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.tier': 'pro' }, then: 'pro' }, { query: { 'params.model': { $regex: '^mini' } }, then: 'mini' }], default: 'free' },
        targets: [target(0, { name: 'pro' }), target(1, { name: 'mini' }), target(1, { name: 'free', override_params: { model: 'overridden' } })],
      },
    },
  });
});
afterAll(() => e2e.close());

describe('chat completions with the vendor SDK', () => {
  it('routes by x-gateway-provider + custom host + Authorization, and sets the gateway headers', async () => {
    const client = e2e.client({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': e2e.mocks[1].baseURL });
    const { data, response } = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0].message.content).toContain('mock1');
    // `openai` is an alias: the canonical name is echoed (and recorded, and matched by limit policies).
    expect(response.headers.get('x-gateway-provider')).toBe('vendor');
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config');
    expect(response.headers.get('x-gateway-retry-attempt-count')).toBe('0');
    expect(response.headers.get('x-gateway-trace-id')).toMatch(/^[0-9a-f-]{36}$/);
    const seen = e2e.mocks[1].requests.at(-1)!;
    expect(seen.headers.authorization).toBe(`Bearer ${VENDOR_MOCK_KEY}`);
    expect(seen.headers['x-gateway-api-key']).toBeUndefined();
  });

  it('streams SSE chunk by chunk through a saved config, ending like the vendor does', async () => {
    const client = e2e.client({ 'x-gateway-config': 'single' });
    const stream = await client.chat.completions.create({ model: 'gpt-test', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'stream please' }] });
    let text = '';
    let usage = null;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(chunks).toBeGreaterThan(2);
    expect(text).toContain('mock0');
    expect(usage).not.toBeNull();
  });

  it('echoes a client trace id', async () => {
    const client = e2e.client({ 'x-gateway-config': 'single', 'x-gateway-trace-id': 'trace-abc-123' });
    const { response } = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).withResponse();
    expect(response.headers.get('x-gateway-trace-id')).toBe('trace-abc-123');
  });

  it('falls back to the second target when the first answers 503', async () => {
    e2e.mocks[0].script({ path: '/v1/chat/completions', status: 503 });
    const client = e2e.client({ 'x-gateway-config': 'fallback' });
    const { data, response } = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).withResponse();
    expect(data.choices[0].message.content).toContain('mock1');
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
  });

  it('reports the nested target path', async () => {
    e2e.mocks[0].script({ path: '/v1/chat/completions', status: 503 });
    const client = e2e.client({ 'x-gateway-config': 'nested-fallback' });
    const { data, response } = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).withResponse();
    expect(data.choices[0].message.content).toContain('mock1');
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1].targets[0]');
  });

  it('passes the last provider error through with its status when every fallback target fails', async () => {
    e2e.mocks[0].script({ path: '/v1/chat/completions', status: 500 });
    e2e.mocks[1].script({ path: '/v1/chat/completions', status: 429, error: { message: 'slow down' } });
    const client = e2e.client({ 'x-gateway-config': 'fallback' });
    const error = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, message: expect.stringContaining('slow down') });
  });

  it('routes conditionally on metadata and on body params, applying override_params', async () => {
    const pro = await e2e.client({ 'x-gateway-config': 'conditional', 'x-gateway-metadata': JSON.stringify({ tier: 'pro' }) })
      .chat.completions.create({ model: 'big', messages: [{ role: 'user', content: 'x' }] }).withResponse();
    expect(pro.response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[0]');
    const mini = await e2e.client({ 'x-gateway-config': 'conditional' }).chat.completions.create({ model: 'mini-1', messages: [{ role: 'user', content: 'x' }] }).withResponse();
    expect(mini.response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    const free = await e2e.client({ 'x-gateway-config': 'conditional' }).chat.completions.create({ model: 'big', messages: [{ role: 'user', content: 'x' }] }).withResponse();
    expect(free.response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[2]');
    expect(e2e.mocks[1].requests.at(-1)!.json).toMatchObject({ model: 'overridden' });
  });

  it('compiles an inline config once and routes by it', async () => {
    const inline = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [target(1)] }).replace('{{mock1}}', e2e.mocks[1].baseURL);
    for (let i = 0; i < 3; i++) {
      const { data } = await e2e.client({ 'x-gateway-config': inline }).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).withResponse();
      expect(data.choices[0].message.content).toContain('mock1');
    }
  });

  it('answers 400 with the compile errors for an invalid inline config', async () => {
    const res = await e2e.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-config': '{"strategy":{"mode":"fallback"},"targets":[{"providr":"vendor","api_key":"k"}]}' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('invalid_config');
    expect(error.errors).toContainEqual(expect.objectContaining({ code: 'CFG_UNKNOWN_KEY', pointer: '/targets/0/providr', hint: 'did you mean "provider"?' }));
  });

  it('answers 400 for an unknown saved config ID, a bad metadata header, and no provider at all', async () => {
    const post = (headers: Record<string, string>) =>
      e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"model":"m","messages":[{"role":"user","content":"x"}]}' });
    const unknown = await post({ 'x-gateway-config': 'no-such-config' });
    expect(unknown.status).toBe(400);
    expect((await errorOf(unknown)).code).toBe('unknown_config_id');
    const badMeta = await post({ 'x-gateway-config': 'single', 'x-gateway-metadata': '{"a": 1}' });
    expect(badMeta.status).toBe(400);
    expect((await errorOf(badMeta)).code).toBe('invalid_header');
    const none = await post({});
    expect(none.status).toBe(400);
    expect((await errorOf(none)).code).toBe('missing_provider');
    const noCredential = await post({ 'x-gateway-provider': 'openai' });
    expect(noCredential.status).toBe(400);
    expect((await errorOf(noCredential)).code).toBe('missing_provider_credentials');
  });

  it('refuses a routing header no target of the route reads, and two ways of naming the provider at once', async () => {
    const post = (headers: Record<string, string>) =>
      e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${VENDOR_MOCK_KEY}`, ...headers }, body: '{"model":"m","messages":[{"role":"user","content":"x"}]}' });
    // `single` names its provider, key and host: a header naming another would be ignored.
    for (const [name, value] of [['x-gateway-provider', 'anthropic'], ['x-gateway-custom-host', e2e.mocks[1].baseURL], ['x-gateway-virtual-key', 'vk-any']]) {
      const res = await post({ 'x-gateway-config': 'single', [name]: value });
      expect(res.status, name).toBe(400);
      const error = await errorOf(res);
      expect(error).toMatchObject({ code: 'invalid_header', param: name });
      expect(error.message).toMatch(new RegExp(`^${name} would have no effect: every target of this route`));
    }
    // A target that leaves its provider and host open reads them, beside one that does not.
    const open = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ ...target(0), custom_host: e2e.mocks[0].baseURL }, { retry: { attempts: 1 } }] });
    const taken = await post({ 'x-gateway-config': open, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': e2e.mocks[1].baseURL });
    expect(taken.status).toBe(200);
    const bare = await post({ 'x-gateway-config': JSON.stringify({ retry: { attempts: 1 } }), 'x-gateway-provider': 'openai', 'x-gateway-custom-host': e2e.mocks[1].baseURL });
    expect(bare.status).toBe(200);
    expect(bare.headers.get('x-gateway-provider')).toBe('vendor');
    // With a config or without, a virtual key and a provider are two answers to one question.
    for (const config of [{}, { 'x-gateway-config': JSON.stringify({ retry: { attempts: 1 } }) }] as Record<string, string>[]) {
      const both = await post({ ...config, 'x-gateway-provider': 'openai', 'x-gateway-virtual-key': 'vk-any' });
      expect(both.status).toBe(400);
      expect(await errorOf(both)).toMatchObject({ code: 'invalid_header', param: 'x-gateway-virtual-key' });
    }
  });
});
