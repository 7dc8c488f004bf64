// The messages API's create call to a cloud that serves Claude under its own URL, through the
// official Anthropic SDK against the real gateway and the clouds' mocks (cloud C: SigV4 checked, the
// binary event stream; cloud B: its OAuth token, rawPredict's server-sent events): a Claude model's
// invoke or rawPredict answers it in the messages API's shapes, JSON and streamed; a fallback from an
// overloaded `anthropic` target to the cloud serves one body; it is judged, logged and priced like
// the messages API's own; betas the route forwards reach the cloud; errors come back in the messages
// API's shape. And cloud B's own rawPredict through the pass-through is metered like the others.
import { randomUUID } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { loggedRecord, messagesClient, textOf } from './messages-client.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOUDB_PROJECT, CLOUDB_REGION } from '../mocks/cloudb/index.ts';
import { promptTokensOf } from '../mocks/cloudb/generate.ts';
import type { MockServer } from '../mocks/http/mock-server.ts';
import { serveTranslatedFamilies, type TranslatedFamilies } from './translated-families.ts';

const GATEWAY_KEY = 'gw_messages-clouds-admin-key-0123456789abcd';
const BETA = 'interleaved-thinking-2025-05-14';
const EMAIL = 'jane.doe@example.com';

interface Cloud {
  family: 'cloudc' | 'cloudb';
  /** The model as the cloud names it, set in each target's override_params. */
  model: string;
  /** The path the cloud's mock gets a create call on, streamed or not. */
  path(streamed: boolean): string;
  mock(families: TranslatedFamilies): MockServer;
  /** Where the forwarded betas are in what the cloud got. */
  betasOf(request: { json: unknown; headers: Record<string, unknown> }): unknown;
  /** The path the cloud counts tokens on. */
  countPath: string;
}

const CLOUDS: Cloud[] = [
  {
    family: 'cloudc',
    model: 'us.anthropic.claude-3-7-sonnet-20250219-v1:0',
    path: (streamed) => `/model/${encodeURIComponent('us.anthropic.claude-3-7-sonnet-20250219-v1:0')}/${streamed ? 'invoke-with-response-stream' : 'invoke'}`,
    mock: (families) => families.cloudc,
    betasOf: (request) => (request.json as { anthropic_beta?: unknown }).anthropic_beta,
    countPath: `/model/${encodeURIComponent('us.anthropic.claude-3-7-sonnet-20250219-v1:0')}/count-tokens`,
  },
  {
    family: 'cloudb',
    model: 'claude-3-7-sonnet@20250219',
    path: (streamed) => `/v1/projects/${CLOUDB_PROJECT}/locations/${CLOUDB_REGION}/publishers/anthropic/models/claude-3-7-sonnet@20250219:${streamed ? 'streamRawPredict' : 'rawPredict'}`,
    mock: (families) => families.cloudb,
    betasOf: (request) => (typeof request.headers['anthropic-beta'] === 'string' ? request.headers['anthropic-beta'].split(',') : undefined),
    countPath: `/v1/projects/${CLOUDB_PROJECT}/locations/${CLOUDB_REGION}/publishers/anthropic/models/count-tokens:rawPredict`,
  },
];

let families: TranslatedFamilies;
beforeAll(async () => {
  families = await serveTranslatedFamilies('messages-clouds', GATEWAY_KEY, (targets) => {
    const configs: Record<string, unknown> = { anthropic: targets.anthropic };
    for (const cloud of CLOUDS) {
      const target = { ...targets[cloud.family], override_params: { model: cloud.model } };
      configs[cloud.family] = target;
      configs[`${cloud.family}-betas`] = { ...target, forward_headers: ['anthropic-beta'] };
      configs[`${cloud.family}-as-named`] = targets[cloud.family];
      configs[`claude-then-${cloud.family}`] = { strategy: { mode: 'fallback', on_status_codes: [529] }, targets: [targets.anthropic, target] };
      configs[`${cloud.family}-guarded`] = {
        ...target,
        input_guardrails: [{ id: 'no-secret', deny: true, 'default.contains': { words: ['secret'], operator: 'none' } }],
        output_guardrails: [{ id: 'pii', 'default.piiRedact': {} }],
      };
    }
    return configs;
  });
});
afterAll(() => families?.close());

function client(config: string, trace = randomUUID()): Anthropic {
  return messagesClient(families.served.gateway.url, GATEWAY_KEY, config, trace);
}

const logged = (trace: string): Promise<any> => loggedRecord(families.served.gateway.url, GATEWAY_KEY, trace);

describe.each(CLOUDS)('the messages API through a $family target', (cloud) => {
  const sentTo = (streamed: boolean) => cloud.mock(families).requests.filter((r) => r.path === cloud.path(streamed));

  it('answers a create call with the Claude model\'s own call, in the messages API\'s shape, logged and priced', async () => {
    const trace = randomUUID();
    const before = sentTo(false).length;
    const content = `Hello from the messages API ${trace}`;
    const message = await client(cloud.family, trace).messages.create({ model: 'claude-3-7-sonnet', max_tokens: 256, messages: [{ role: 'user', content }] });
    expect(message).toMatchObject({ type: 'message', role: 'assistant' });
    expect(textOf(message)).not.toBe('');
    const sent = sentTo(false).slice(before);
    expect(sent).toHaveLength(1);
    // The model is in the URL, the version in the body; nothing else changed.
    expect(sent[0]!.json).toEqual({ anthropic_version: cloud.family === 'cloudc' ? 'bedrock-2023-05-31' : 'vertex-2023-10-16', max_tokens: 256, messages: [{ role: 'user', content }] });
    const record = await logged(trace);
    expect(record).toMatchObject({ provider: cloud.family, status: 200, stream: false, model_requested: 'claude-3-7-sonnet', model_answered: 'claude-3-7-sonnet-20250219' });
    expect(record.usage).toMatchObject({ input_tokens: message.usage.input_tokens, output_tokens: message.usage.output_tokens, estimated: false });
    expect(record.cost_usd).toBeGreaterThan(0);
  });

  it('streams the messages API\'s server-sent events, which the SDK reads, logged with their usage', async () => {
    const trace = randomUUID();
    const before = sentTo(true).length;
    const stream = client(cloud.family, trace).messages.stream({ model: 'claude-3-7-sonnet', max_tokens: 256, messages: [{ role: 'user', content: `Stream please ${trace}` }] });
    const types: string[] = [];
    stream.on('streamEvent', (event) => void types.push(event.type));
    const message = await stream.finalMessage();
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(types).toContain('content_block_delta');
    expect(textOf(message)).not.toBe('');
    expect(message.stop_reason).toBe('end_turn');
    expect(sentTo(true).slice(before)).toHaveLength(1);
    const record = await logged(trace);
    expect(record).toMatchObject({ provider: cloud.family, status: 200, stream: true });
    expect(record.usage).toMatchObject({ input_tokens: message.usage.input_tokens, output_tokens: message.usage.output_tokens, estimated: false });
  });

  it('falls back from an overloaded anthropic target to the cloud with the same body', async () => {
    families.messages.script({ path: '/v1/messages', status: 529 });
    const { data, response } = await client(`claude-then-${cloud.family}`).messages.create({ model: 'claude-3-7-sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'Anyone there?' }] }).withResponse();
    expect(response.headers.get('x-gateway-provider')).toBe(cloud.family);
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(data.content[0]?.type).toBe('text');
  });

  it('judges the call as the messages API\'s own: its prompt before the cloud is asked, its streamed answer rewritten', async () => {
    const before = cloud.mock(families).requests.length;
    const denied = await client(`${cloud.family}-guarded`).messages.create({ model: 'claude-3-7-sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'Tell me the secret' }] }).catch((e: unknown) => e);
    expect((denied as { status?: number }).status).toBe(446);
    expect(cloud.mock(families).requests.length).toBe(before);
    const message = await client(`${cloud.family}-guarded`).messages.stream({ model: 'claude-3-7-sonnet', max_tokens: 128, messages: [{ role: 'user', content: `Write to ${EMAIL}` }] }).finalMessage();
    expect(textOf(message)).toContain('[EMAIL]');
    expect(textOf(message)).not.toContain(EMAIL);
  });

  it('counts a body\'s tokens where the cloud counts them, answered as the messages API\'s count', async () => {
    const body = { model: 'claude-3-7-sonnet', system: 'Be brief.', messages: [{ role: 'user' as const, content: 'How many tokens are in this request?' }] };
    const before = cloud.mock(families).requests.filter((r) => r.path === cloud.countPath).length;
    const counted = await client(cloud.family).messages.countTokens(body);
    // The messages API's own count of the same body (the mocks count alike).
    expect(counted).toEqual(await client('anthropic').messages.countTokens(body));
    expect(cloud.mock(families).requests.filter((r) => r.path === cloud.countPath).length).toBe(before + 1);
  });

  it('sends the betas the route forwards where the cloud takes them', async () => {
    const before = sentTo(false).length;
    await client(`${cloud.family}-betas`).beta.messages.create({ model: 'claude-3-7-sonnet', max_tokens: 64, betas: [BETA], messages: [{ role: 'user', content: 'With a beta' }] });
    const sent = sentTo(false).slice(before);
    expect(sent).toHaveLength(1);
    expect(cloud.betasOf(sent[0]!)).toEqual([BETA]);
  });

  it.runIf(cloud.family === 'cloudc')('refuses a Claude model name that is no model ID of the cloud, saying where to name one', async () => {
    const error = await client(`${cloud.family}-as-named`).messages.create({ model: 'claude-3-7-sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).message).toMatch(/not a Claude model ID.*override_params\.model/);
  });

  it('answers another model of the cloud as a chat, through its own translation, streamed or not', async () => {
    const model = cloud.family === 'cloudc' ? 'amazon.nova-lite-v1:0' : 'gemini-2.5-flash';
    const answered = await client(`${cloud.family}-as-named`).messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello other model' }] });
    expect(answered).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' });
    expect(textOf(answered)).not.toBe('');
    expect(answered.usage.input_tokens).toBeGreaterThan(0);
    const trace = randomUUID();
    const streamed = await client(`${cloud.family}-as-named`, trace).messages.stream({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello other model' }] }).finalMessage();
    expect(textOf(streamed)).toBe(textOf(answered));
    expect(streamed.usage).toMatchObject({ input_tokens: answered.usage.input_tokens, output_tokens: answered.usage.output_tokens });
    const record = await logged(trace);
    expect(record).toMatchObject({ provider: cloud.family, stream: true });
    expect(record.usage).toMatchObject({ input_tokens: answered.usage.input_tokens, estimated: false });
    // Its own chat call, not Claude's: converse, or generateContent.
    const last = cloud.mock(families).requests.at(-1)!;
    expect(last.path).toMatch(cloud.family === 'cloudc' ? /\/converse-stream$/ : /:streamGenerateContent$/);
  });

  it('gives the cloud\'s refusals back in the messages API\'s error shape', async () => {
    // A body without max_tokens: the cloud refuses it, as the messages API does.
    const response = await fetch(`${families.served.gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': cloud.family, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-3-7-sonnet', messages: [{ role: 'user', content: 'No limit' }] }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as any;
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(body.error.message).toMatch(/max_tokens/);
  });

  it('refuses a query the cloud\'s URL has no place for', async () => {
    const response = await fetch(`${families.served.gateway.url}/v1/messages?region=eu`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': cloud.family, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-3-7-sonnet', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error).toMatchObject({ code: 'unsupported_parameter', param: 'region' });
  });
});

describe('Gemini 3 through the messages API', () => {
  it('keeps its thought signatures between a messages client\'s tool turns, as for a chat client', async () => {
    const tools = [{ name: 'search', description: 'Searches', input_schema: { type: 'object' as const, properties: { query: { type: 'string' } } } }];
    const asked = { model: 'gemini-3-pro-preview', max_tokens: 256, tools, messages: [{ role: 'user' as const, content: 'Find the news' }] };
    const first = await client('cloudb-as-named').messages.create(asked);
    expect(first.stop_reason).toBe('tool_use');
    const call = first.content.find((block) => block.type === 'tool_use')!;
    // The next turn gives the call's result back; Gemini 3 wants its call's signature with it, which the client never saw.
    const second = await client('cloudb-as-named').messages.create({ ...asked, messages: [...asked.messages, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'Nothing new' }] }] });
    expect(second.stop_reason).toBe('end_turn');
    expect(textOf(second)).toContain('Nothing new');
  });
});

describe('the messages API\'s token count of a model cloud B answers as a chat', () => {
  it('is the service\'s own countTokens of the generateContent body the translation makes, not metered', async () => {
    const body = {
      model: 'gemini-2.5-flash',
      system: 'You are terse.',
      tools: [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } } }],
      tool_choice: { type: 'auto' as const },
      messages: [{ role: 'user' as const, content: 'How many tokens is this question?' }],
    };
    const trace = randomUUID();
    const counted = await client('cloudb-as-named', trace).messages.countTokens(body);
    const sent = families.cloudb.requests.filter((r) => r.path.endsWith('/models/gemini-2.5-flash:countTokens')).at(-1)!.json as Record<string, any>;
    expect(sent).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'How many tokens is this question?' }] }],
      systemInstruction: { parts: [{ text: 'You are terse.' }] },
      tools: [{ functionDeclarations: [{ name: 'Read', description: 'Reads a file' }] }],
    });
    expect(sent).not.toHaveProperty('toolConfig');
    expect(counted).toEqual({ input_tokens: promptTokensOf(sent) });
    const record = await logged(trace);
    expect(record).toMatchObject({ provider: 'cloudb', status: 200, usage: null, cost_usd: null });
    // Another cloud's chat API counts nothing: still refused, naming the provider.
    const refused = await client('cloudc-as-named').messages.countTokens({ model: 'amazon.nova-lite-v1:0', messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect((refused as { status?: number }).status).toBe(400);
  });
});

describe('a coding agent\'s turn to Gemini through the messages API', () => {
  it('reaches generateContent whole: its tools\' JSON Schema, its effort as a thinking level, a tool result\'s screenshot beside the result', async () => {
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', additionalProperties: false, properties: { file_path: { type: 'string' } }, required: ['file_path'] };
    const body = {
      model: 'gemini-3-pro-preview', max_tokens: 512,
      system: [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }],
      thinking: { type: 'adaptive' }, output_config: { effort: 'high' }, context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
      tools: [{ name: 'Read', description: 'Reads a file', input_schema: schema }],
      messages: [{ role: 'user', content: 'What does shot.png show?' }],
    };
    const first = await client('cloudb-as-named').messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming);
    const call = first.content.find((block) => block.type === 'tool_use')!;
    const png = Buffer.from('PNG screenshot').toString('base64');
    const second = await client('cloudb-as-named').messages.create({
      ...body,
      messages: [...body.messages, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: [{ type: 'text', text: 'Read shot.png' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }] }] }],
    } as unknown as Anthropic.MessageCreateParamsNonStreaming);
    expect(second.stop_reason).toBe('end_turn');
    const sent = families.cloudb.requests.filter((r) => r.path.endsWith('gemini-3-pro-preview:generateContent')).at(-1)!.json as Record<string, any>;
    expect(sent.tools).toEqual([{ functionDeclarations: [{ name: 'Read', description: 'Reads a file', parametersJsonSchema: schema }] }]);
    expect(sent.generationConfig.thinkingConfig).toMatchObject({ thinkingLevel: 'high' });
    expect(sent.contents.at(-1).parts).toEqual([
      { functionResponse: { name: 'Read', response: { content: 'Read shot.png' } } },
      { inlineData: { mimeType: 'image/png', data: png } },
    ]);
  });
});

describe('Claude on cloud B opening its stream with an error', () => {
  it('is the error answer of its type, which a fallback moves past, and the SDK reads as that status', async () => {
    const overloaded = { path: CLOUDS[1]!.path(true), streamError: { after: 0, type: 'overloaded_error', message: 'Overloaded' } };
    families.cloudb.script(overloaded);
    const error = await client('cloudb').messages.stream({ model: 'claude-3-7-sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'Busy?' }] }).finalMessage().catch((e: unknown) => e);
    expect((error as { status?: number }).status).toBe(529);
    expect((error as { error?: unknown }).error).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });
});

describe('cloud B\'s own rawPredict on a Claude model through the pass-through', () => {
  it('is metered and priced like the messages API, streamed or not', async () => {
    for (const streamed of [false, true]) {
      const trace = randomUUID();
      const path = CLOUDS[1]!.path(streamed);
      const response = await fetch(`${families.served.gateway.url}${path}`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'cloudb-as-named', 'x-gateway-trace-id': trace, 'content-type': 'application/json' },
        body: JSON.stringify({ anthropic_version: 'vertex-2023-10-16', max_tokens: 64, messages: [{ role: 'user', content: `Straight to rawPredict ${trace}` }], ...(streamed ? { stream: true } : {}) }),
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      const record = await logged(trace);
      expect(record).toMatchObject({ provider: 'cloudb', status: 200, stream: streamed, model_requested: 'claude-3-7-sonnet@20250219', model_answered: 'claude-3-7-sonnet-20250219' });
      expect(record.usage).toMatchObject({ estimated: false });
      expect(record.usage.input_tokens).toBeGreaterThan(0);
      expect(record.cost_usd).toBeGreaterThan(0);
    }
  });
});
