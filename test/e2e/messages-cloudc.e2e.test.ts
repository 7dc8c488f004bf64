// The messages API's create call to a `cloudc` target, through the official Anthropic SDK against the
// real gateway and the cloud C mock (SigV4 checked, the binary event stream): a Claude model's invoke
// answers it in the messages API's shapes, JSON and streamed; a fallback from an overloaded `anthropic`
// target to a `cloudc` one serves one body; betas the route forwards reach the invoke; errors come
// back in the messages API's shape; the call is logged and priced like the messages API's own.
import { randomUUID } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveTranslatedFamilies, type TranslatedFamilies } from './translated-families.ts';

const GATEWAY_KEY = 'gw_messages-cloudc-admin-key-0123456789abcd';
const BEDROCK_MODEL = 'us.anthropic.claude-3-7-sonnet-20250219-v1:0';
const BETA = 'interleaved-thinking-2025-05-14';

describe('the messages API through a cloudc target', () => {
  let families: TranslatedFamilies;
  beforeAll(async () => {
    families = await serveTranslatedFamilies('messages-cloudc', GATEWAY_KEY, (targets) => ({
      bedrock: { ...targets.cloudc, override_params: { model: BEDROCK_MODEL } },
      'bedrock-betas': { ...targets.cloudc, override_params: { model: BEDROCK_MODEL }, forward_headers: ['anthropic-beta'] },
      'bedrock-as-named': targets.cloudc,
      'bedrock-guarded': { ...targets.cloudc, override_params: { model: BEDROCK_MODEL }, input_guardrails: [{ id: 'no-secret', deny: true, 'default.contains': { words: ['secret'], operator: 'none' } }], output_guardrails: [{ id: 'pii', 'default.piiRedact': {} }] },
      'claude-then-bedrock': { strategy: { mode: 'fallback', on_status_codes: [529] }, targets: [targets.anthropic, { ...targets.cloudc, override_params: { model: BEDROCK_MODEL } }] },
    }));
  });
  afterAll(() => families?.close());

  function client(config: string, trace = randomUUID()): Anthropic {
    // The SDK's own key header goes nowhere: the gateway signs for cloud C with the target's keys.
    return new Anthropic({ baseURL: families.served.gateway.url, apiKey: 'unused-by-cloudc', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': config, 'x-gateway-trace-id': trace } });
  }

  const invokes = (suffix: string) => families.cloudc.requests.filter((r) => r.path === `/model/${encodeURIComponent(BEDROCK_MODEL)}/${suffix}`);

  async function logged(trace: string): Promise<any> {
    for (let i = 0; i < 40; i++) {
      const page = (await (await fetch(`${families.served.gateway.url}/v1/logs?trace_id=${trace}`, { headers: { 'x-gateway-api-key': GATEWAY_KEY } })).json()) as any;
      if (page.data.length > 0) return page.data[0];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no record of ${trace}`);
  }

  it('answers a create call with the model\'s invoke, in the messages API\'s shape, logged and priced', async () => {
    const trace = randomUUID();
    const before = invokes('invoke').length;
    const message = await client('bedrock', trace).messages.create({ model: 'claude-3-7-sonnet', max_tokens: 256, messages: [{ role: 'user', content: `Hello from the messages API ${trace}` }] });
    expect(message.type).toBe('message');
    expect(message.role).toBe('assistant');
    expect(message.content[0]?.type).toBe('text');
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    const sent = invokes('invoke').slice(before);
    expect(sent).toHaveLength(1);
    // The model is in the path, the version in the body; nothing else changed.
    expect(sent[0]!.json).toEqual({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 256, messages: [{ role: 'user', content: `Hello from the messages API ${trace}` }] });
    const record = await logged(trace);
    expect(record).toMatchObject({ provider: 'cloudc', status: 200, stream: false, model_requested: 'claude-3-7-sonnet' });
    expect(record.usage).toMatchObject({ input_tokens: message.usage.input_tokens, output_tokens: message.usage.output_tokens, estimated: false });
    expect(record.cost_usd).toBeGreaterThan(0);
  });

  it('streams the invoke\'s events as the messages API\'s server-sent events, which the SDK reads', async () => {
    const trace = randomUUID();
    const before = invokes('invoke-with-response-stream').length;
    const stream = client('bedrock', trace).messages.stream({ model: 'claude-3-7-sonnet', max_tokens: 256, messages: [{ role: 'user', content: `Stream please ${trace}` }] });
    const types: string[] = [];
    stream.on('streamEvent', (event) => void types.push(event.type));
    const message = await stream.finalMessage();
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(types).toContain('content_block_delta');
    expect(message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')).not.toBe('');
    expect(message.stop_reason).toBe('end_turn');
    const sent = invokes('invoke-with-response-stream').slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.json).not.toHaveProperty('stream');
    const record = await logged(trace);
    expect(record).toMatchObject({ provider: 'cloudc', status: 200, stream: true });
    expect(record.usage).toMatchObject({ input_tokens: message.usage.input_tokens, output_tokens: message.usage.output_tokens, estimated: false });
  });

  it('falls back from an overloaded anthropic target to cloudc with the same body', async () => {
    families.messages.script({ path: '/v1/messages', status: 529 });
    const { data, response } = await client('claude-then-bedrock').messages.create({ model: 'claude-3-7-sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'Anyone there?' }] }).withResponse();
    expect(response.headers.get('x-gateway-provider')).toBe('cloudc');
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(data.content[0]?.type).toBe('text');
  });

  it('judges the call as the messages API\'s own: its prompt before the invoke, its streamed answer rewritten', async () => {
    const before = families.cloudc.requests.length;
    const denied = await client('bedrock-guarded').messages.create({ model: 'claude-3-7-sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'Tell me the secret' }] }).catch((e: unknown) => e);
    expect((denied as { status?: number }).status).toBe(446);
    expect(families.cloudc.requests.length).toBe(before);
    const email = 'jane.doe@example.com';
    const message = await client('bedrock-guarded').messages.stream({ model: 'claude-3-7-sonnet', max_tokens: 128, messages: [{ role: 'user', content: `Write to ${email}` }] }).finalMessage();
    const text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    expect(text).toContain('[EMAIL]');
    expect(text).not.toContain(email);
  });

  it('sends the betas the route forwards as the invoke body\'s anthropic_beta', async () => {
    const before = invokes('invoke').length;
    await client('bedrock-betas').beta.messages.create({ model: 'claude-3-7-sonnet', max_tokens: 64, betas: [BETA], messages: [{ role: 'user', content: 'With a beta' }] });
    const sent = invokes('invoke').slice(before);
    expect(sent).toHaveLength(1);
    expect((sent[0]!.json as { anthropic_beta?: unknown }).anthropic_beta).toEqual([BETA]);
  });

  it('refuses a model name that is no Claude model ID of cloud C, saying where to name one', async () => {
    const error = await client('bedrock-as-named').messages.create({ model: 'claude-3-7-sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).message).toMatch(/not a Claude model ID.*override_params\.model/);
  });

  it('gives the service\'s errors back in the messages API\'s error shape', async () => {
    // The service refuses a body without max_tokens (the invoke requires it, as the messages API does).
    const response = await fetch(`${families.served.gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'bedrock', 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'No limit' }] }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as any;
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toMatch(/max_tokens/);
  });

  it('refuses a query the invoke\'s URL has no place for', async () => {
    const response = await fetch(`${families.served.gateway.url}/v1/messages?region=eu`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'bedrock', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-3-7-sonnet', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error).toMatchObject({ code: 'unsupported_parameter', param: 'region' });
  });
});
