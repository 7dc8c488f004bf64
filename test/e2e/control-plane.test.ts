// The control plane meeting the data plane, with the official vendor SDK as the client, on SQLite
// and PostgreSQL: render output sent unchanged as a chat completion, a config saved over the API
// routing the very next request (and replaced atomically), and a config's prompt_id rendered into
// the request before routing.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../store/backends.ts';
import { ADMIN_KEY, type ApiGateway, startApiGateway } from '../api/harness.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';

const GREETER = {
  id: 'greeter',
  name: 'Greeter',
  model: 'gpt-greeter',
  hyperparameters: { temperature: 0.3, max_tokens: 40 },
  messages: [
    { role: 'system', content: 'You are {{persona}}.' },
    { role: 'user', content: 'Greet {{name}}' },
  ],
};

describe.each(BACKENDS)('control plane with the vendor SDK on %s', (backend) => {
  let api: ApiGateway;
  let mocks: VendorMock[];
  const sdk = (headers: Record<string, string>) =>
    new OpenAI({ baseURL: `${api.url}/v1`, apiKey: VENDOR_MOCK_KEY, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': ADMIN_KEY, ...headers } });
  const target = (mock: number, extra: Record<string, unknown> = {}) => ({ provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mocks[mock].baseURL, ...extra });

  beforeAll(async () => {
    mocks = [await startVendorMock({ label: 'mock0' }), await startVendorMock({ label: 'mock1' })];
    api = await startApiGateway(backend);
    expect((await api.call('POST', '/v1/prompts', { body: GREETER })).status).toBe(200);
  });
  afterAll(async () => {
    await api?.close();
    await Promise.all((mocks ?? []).map((m) => m.close()));
  });

  it('sends render output unchanged as a chat completion', async () => {
    const rendered = await api.call('POST', '/v1/prompts/greeter/render', { body: { variables: { persona: 'a pirate', name: 'Ada' }, temperature: 0.7, n: 1 } });
    expect(rendered.status).toBe(200);
    const client = sdk({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': mocks[0].baseURL });
    const completion = await client.chat.completions.create(rendered.body.data);
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-greeter');
    expect(completion.choices[0].message.content).toContain('[mock0] Greet Ada');
    expect(mocks[0].requests.at(-1)!.json).toEqual(rendered.body.data);
  });

  it('routes the next request through a config saved over the API, replaces it atomically, and forgets it on delete', async () => {
    const saved = await api.call('POST', '/v1/configs', { body: { id: 'api-routed', config: target(0) } });
    expect(saved.status).toBe(200);
    const client = sdk({ 'x-gateway-config': 'api-routed' });
    const ask = () => client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'which' }] });
    expect((await ask()).choices[0].message.content).toContain('[mock0]');

    await api.call('PUT', '/v1/configs/api-routed', { body: { config: { strategy: { mode: 'fallback' }, targets: [target(1, { override_params: { model: 'pinned' } }), target(0)] } } });
    const { data, response } = await ask().withResponse();
    expect(data.choices[0].message.content).toContain('[mock1]');
    expect(data.model).toBe('pinned');
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[0]');

    await api.call('DELETE', '/v1/configs/api-routed');
    const gone = await ask().catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(OpenAI.BadRequestError);
    expect((gone as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ code: 'unknown_config_id' });
  });

  it("renders a config's prompt_id into the request before routing", async () => {
    // Conditional routing on the *rendered* model proves the template was applied before the router ran.
    await api.call('POST', '/v1/configs', {
      body: {
        id: 'prompted',
        config: {
          prompt_id: 'greeter',
          strategy: { mode: 'conditional', conditions: [{ query: { 'params.model': 'gpt-greeter' }, then: 'templated' }], default: 'other' },
          targets: [target(1, { name: 'templated' }), target(0, { name: 'other' })],
        },
      },
    });
    const res = await fetch(`${api.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN_KEY, 'x-gateway-config': 'prompted', 'content-type': 'application/json' },
      body: JSON.stringify({ variables: { persona: 'terse', name: 'Bo' }, max_tokens: 20 }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content).toContain('[mock1] Greet Bo');
    expect(mocks[1].requests.at(-1)!.json).toEqual({
      messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Greet Bo' }],
      model: 'gpt-greeter',
      temperature: 0.3,
      max_tokens: 20,
    });

    // Through the SDK: the caller's messages follow the template's, its model overrides (and so routes to `other`).
    const client = sdk({ 'x-gateway-config': 'prompted' });
    const params = { model: 'gpt-other', messages: [{ role: 'user', content: 'and me' }], variables: { persona: 'kind', name: 'Cy' } } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming;
    const completion = await client.chat.completions.create(params);
    expect(completion.choices[0].message.content).toContain('[mock0] and me');
    expect((mocks[0].requests.at(-1)!.json as { messages: unknown[] }).messages).toEqual([
      { role: 'system', content: 'You are kind.' },
      { role: 'user', content: 'Greet Cy' },
      { role: 'user', content: 'and me' },
    ]);

    // A new prompt version is what the next request renders.
    await api.call('PUT', '/v1/prompts/greeter', { body: { ...GREETER, id: undefined, messages: [{ role: 'user', content: 'Hey {{name}}!' }] } });
    await client.chat.completions.create({ ...params, model: 'gpt-greeter', messages: [] } as never);
    expect((mocks[1].requests.at(-1)!.json as { messages: unknown[] }).messages).toEqual([{ role: 'user', content: 'Hey Cy!' }]);
  });

  it('answers prompt problems before any provider is called', async () => {
    const before = mocks[0].requests.length + mocks[1].requests.length;
    const post = (config: string, body: unknown) =>
      api.call('POST', '/v1/chat/completions', { headers: { 'x-gateway-config': config }, body });
    const missing = await post('prompted', { variables: { persona: 'x' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'missing_prompt_variable', missing_variables: ['name'] });

    const inline = JSON.stringify({ prompt_id: 'greeter@1', ...target(0) });
    const pinned = await post(inline, { variables: { persona: 'old', name: 'Di' } });
    expect(pinned.status).toBe(200);
    expect((mocks[0].requests.at(-1)!.json as { messages: Array<{ content: string }> }).messages[1].content).toBe('Greet Di');

    const unknown = await post(JSON.stringify({ prompt_id: 'no-such-prompt', ...target(0) }), { variables: {} });
    expect(unknown.body.error.code).toBe('unknown_prompt_id');
    const ambiguous = await post(JSON.stringify({ strategy: { mode: 'fallback' }, targets: [target(0, { prompt_id: 'greeter' }), target(1, { prompt_id: 'greeter@1' })] }), { variables: {} });
    expect(ambiguous.body.error.code).toBe('ambiguous_prompt_id');
    const notObject = await post('prompted', { variables: 'x' });
    expect(notObject.body.error.code).toBe('invalid_request_body');
    const badJson = await api.call('POST', '/v1/chat/completions', { headers: { 'x-gateway-config': 'prompted', 'content-type': 'application/json' }, rawBody: '{"variables":' });
    expect(badJson.body.error.code).toBe('invalid_json');
    expect(mocks[0].requests.length + mocks[1].requests.length).toBe(before + 1);
  });
});

describe('control plane robustness', () => {
  let api: ApiGateway;
  beforeAll(async () => {
    api = await startApiGateway('sqlite');
    await api.call('POST', '/v1/prompts', { body: GREETER });
    await api.call('POST', '/v1/configs', { body: { id: 'prompted', config: { prompt_id: 'greeter', provider: 'openai', api_key: 'sk-unused', custom_host: 'http://127.0.0.1:9/v1' } } });
  });
  afterAll(() => api?.close());

  it('answers hostile bodies with 4xx, never 500, and keeps serving', async () => {
    const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    const cases: Array<[string, string, Record<string, string>]> = [
      ['/v1/prompts/greeter/render', `{"variables":{"persona":${deep(200_000)},"name":"x"}}`, {}],
      ['/v1/chat/completions', `{"variables":{"persona":"p","name":"n"},"messages":[${deep(200_000)}]}`, { 'x-gateway-config': 'prompted' }],
      ['/v1/chat/completions', `{"variables":{"persona":${deep(200_000)},"name":"n"}}`, { 'x-gateway-config': 'prompted' }],
      ['/v1/configs', `{"config":${deep(100_000)}}`, {}],
      ['/v1/prompts', '{"name":"x","messages":[{"role":"user","content":"{{#a}}{{#b}}"}]}', {}],
      ['/v1/prompts/greeter/render', '{"variables":{"__proto__":{"persona":"polluted"},"name":"n"}}', {}],
    ];
    for (const [path, rawBody, headers] of cases) {
      const res = await api.call('POST', path, { rawBody, headers: { 'content-type': 'application/json', ...headers } });
      expect(res.status, `${path} ${rawBody.slice(0, 60)}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${path} ${rawBody.slice(0, 60)}: ${JSON.stringify(res.body).slice(0, 200)}`).toBeLessThan(500);
    }
    expect(({} as Record<string, unknown>).persona).toBeUndefined();
    expect((await api.call('GET', '/v1/prompts/greeter')).status).toBe(200);
  });
});
