// The messages API's create call to a provider of the vendor's API, through the official Anthropic
// SDK against the real gateway and the vendor mock: it goes as a chat completion and comes back as
// the messages API's message or events (text, tool use, counts), so a messages client (a coding
// agent) can use another model, and fall back from Claude to it with one body; it is judged, logged
// and priced as the messages API's call; what only Claude has is refused, naming it.
import { randomUUID } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { loggedRecord, messagesClient, textOf } from './messages-client.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMessagesMock, MESSAGES_MOCK_KEY } from '../mocks/messages/index.ts';
import type { MockServer } from '../mocks/http/mock-server.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { inputTokensOf } from '../mocks/vendor/input-tokens.ts';
import { startCloudaMock, CLOUDA_MOCK_KEY } from '../mocks/clouda/index.ts';
import { serveConfigs, type ServedConfigs } from './serve-in-process.ts';

const GATEWAY_KEY = 'gw_messages-as-chat-admin-key-0123456789ab';
const EMAIL = 'jane.doe@example.com';

let vendor: VendorMock;
let messages: MockServer;
let clouda: MockServer;
let served: ServedConfigs;

beforeAll(async () => {
  [vendor, messages, clouda] = await Promise.all([startVendorMock({ label: 'gpt' }), startMessagesMock({ label: 'claude' }), startCloudaMock({ label: 'clouda', deployments: { chat: 'gpt-4o-mini' } })]);
  const gpt = { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: vendor.baseURL, override_params: { model: 'gpt-4o-mini' } };
  served = await serveConfigs('messages-as-chat', GATEWAY_KEY, {
    gpt,
    // A self-hosted server that takes the stream's usage option at a custom_host too, and the older limit field.
    vllm: { provider: 'vllm', api_key: VENDOR_MOCK_KEY, custom_host: vendor.baseURL, override_params: { model: 'gpt-4o-mini' } },
    // A hosted server of the vendor's chat API that counts no tokens.
    groq: { provider: 'groq', api_key: VENDOR_MOCK_KEY, custom_host: vendor.baseURL, override_params: { model: 'gpt-4o-mini' } },
    'claude-then-gpt': { strategy: { mode: 'fallback', on_status_codes: [529] }, targets: [{ provider: 'anthropic', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL }, gpt] },
    // Cloud A's resource deployment, picked by the model its alias names.
    clouda: { provider: 'clouda', api_key: CLOUDA_MOCK_KEY, custom_host: `${clouda.url}/openai`, deployments: [{ deployment_id: 'chat', alias: 'gpt-4o-mini', api_version: '2024-10-21' }], override_params: { model: 'gpt-4o-mini' } },
    'gpt-guarded': { ...gpt, input_guardrails: [{ id: 'no-secret', deny: true, 'default.contains': { words: ['secret'], operator: 'none' } }], output_guardrails: [{ id: 'pii', 'default.piiRedact': {} }] },
  });
});
afterAll(async () => {
  await served?.close();
  await Promise.all([vendor?.close(), messages?.close(), clouda?.close()]);
});

function client(config: string, trace = randomUUID()): Anthropic {
  return messagesClient(served.gateway.url, GATEWAY_KEY, config, trace);
}

const chats = () => vendor.requests.filter((r) => r.path === '/v1/chat/completions');

const logged = (trace: string): Promise<any> => loggedRecord(served.gateway.url, GATEWAY_KEY, trace);

/** A chat completion that calls a tool, as the vendor answers it. */
const TOOL_CALL = { id: 'chatcmpl-tool', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 21, completion_tokens: 7, total_tokens: 28, prompt_tokens_details: { cached_tokens: 5 } } };
const WEATHER_TOOL = { name: 'get_weather', description: 'The weather in a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } };

describe('the messages API answered as a chat completion', () => {
  it('sends the create call as a chat completion and answers its message, logged and priced as the messages API\'s call', async () => {
    const trace = randomUUID();
    const before = chats().length;
    // `temperature`, which this SDK's types no longer name for Claude, is still the messages API's.
    const message = await client('gpt', trace).messages.create({ model: 'claude-sonnet-4-5', max_tokens: 256, system: 'Be brief.', ...({ temperature: 0.5 } as object), stop_sequences: ['END'], metadata: { user_id: 'u-1' }, messages: [{ role: 'user', content: `Hello there ${trace}` }] });
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: 'gpt-4o-mini', stop_reason: 'end_turn' });
    expect(textOf(message)).toContain(`Hello there ${trace}`);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    const sent = chats().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.json).toEqual({
      model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: `Hello there ${trace}` }],
      max_completion_tokens: 256, stop: ['END'], temperature: 0.5, user: 'u-1',
    });
    const record = await logged(trace);
    expect(record).toMatchObject({ provider: 'vendor', status: 200, stream: false, model_requested: 'claude-sonnet-4-5', model_answered: 'gpt-4o-mini' });
    expect(record.usage).toMatchObject({ input_tokens: message.usage.input_tokens, output_tokens: message.usage.output_tokens, estimated: false });
    expect(record.cost_usd).toBeGreaterThan(0);
  });

  it('streams the chat\'s chunks as the messages API\'s events, with the counts the provider reports', async () => {
    const trace = randomUUID();
    const before = chats().length;
    const stream = client('vllm', trace).messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: `Stream it ${trace}` }] });
    const types: string[] = [];
    stream.on('streamEvent', (event) => void types.push(event.type));
    const message = await stream.finalMessage();
    expect(types).toEqual(['message_start', 'content_block_start', ...types.slice(2, -3).map(() => 'content_block_delta'), 'content_block_stop', 'message_delta', 'message_stop']);
    expect(textOf(message)).toContain(`Stream it ${trace}`);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    const sent = chats().slice(before);
    expect(sent[0]!.json).toMatchObject({ stream: true, stream_options: { include_usage: true }, max_tokens: 256 });
    const record = await logged(trace);
    expect(record).toMatchObject({ provider: 'vllm', stream: true });
    expect(record.usage).toMatchObject({ input_tokens: message.usage.input_tokens, output_tokens: message.usage.output_tokens, estimated: false });
  });

  it('reaches cloud A\'s deployment the model picks, streamed, with its usage asked for', async () => {
    const trace = randomUUID();
    const message = await client('clouda', trace).messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: `Deployed ${trace}` }] }).finalMessage();
    expect(textOf(message)).toContain(`Deployed ${trace}`);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    const sent = clouda.requests.filter((r) => r.path === '/openai/deployments/chat/chat/completions').at(-1);
    expect(sent?.json).toMatchObject({ model: 'gpt-4o-mini', max_completion_tokens: 64, stream: true, stream_options: { include_usage: true } });
    expect((await logged(trace)).usage).toMatchObject({ estimated: false });
  });

  it('leaves out the counts of a stream whose provider reports none, and the log estimates them', async () => {
    const trace = randomUUID();
    const message = await client('gpt', trace).messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: `No usage here ${trace}` }] }).finalMessage();
    expect(textOf(message)).toContain('No usage here');
    expect(message.usage.input_tokens).toBeUndefined();
    const record = await logged(trace);
    expect(record.usage).toMatchObject({ estimated: true });
    expect(record.usage.input_tokens).toBeGreaterThan(0);
  });

  it('answers a tool call as tool_use, and sends the tool result back as the chat\'s tool message', async () => {
    vendor.script({ path: '/v1/chat/completions', body: JSON.stringify(TOOL_CALL), contentType: 'application/json' });
    const asked = { model: 'claude-sonnet-4-5', max_tokens: 256, tools: [WEATHER_TOOL], tool_choice: { type: 'auto' as const, disable_parallel_tool_use: true }, messages: [{ role: 'user' as const, content: 'Weather in Paris?' }] };
    const first = await client('gpt').messages.create(asked);
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }]);
    expect(first.usage).toEqual({ input_tokens: 16, cache_creation_input_tokens: 0, cache_read_input_tokens: 5, output_tokens: 7 });
    const before = chats().length;
    await client('gpt').messages.create({ ...asked, messages: [...asked.messages, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: '18°C, sunny' }, { type: 'text', text: 'Thanks!' }] }] });
    expect(chats().slice(before)[0]!.json).toMatchObject({
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters: WEATHER_TOOL.input_schema } }],
      tool_choice: 'auto', parallel_tool_calls: false,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '18°C, sunny' },
        { role: 'user', content: 'Thanks!' },
      ],
    });
  });

  it('streams a tool call as a tool_use block whose input the SDK assembles', async () => {
    const chunks = [
      { id: 'c', object: 'chat.completion.chunk', model: 'gpt-4o-mini', choices: [{ index: 0, delta: { role: 'assistant', content: 'Let me check. ' }, finish_reason: null }] },
      { id: 'c', object: 'chat.completion.chunk', model: 'gpt-4o-mini', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '{"ci' } }] }, finish_reason: null }] },
      { id: 'c', object: 'chat.completion.chunk', model: 'gpt-4o-mini', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'ty":"Oslo"}' } }] }, finish_reason: null }] },
      { id: 'c', object: 'chat.completion.chunk', model: 'gpt-4o-mini', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
      { id: 'c', object: 'chat.completion.chunk', model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 } },
    ];
    vendor.script({ path: '/v1/chat/completions', body: `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`, contentType: 'text/event-stream' });
    const message = await client('gpt').messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 256, tools: [WEATHER_TOOL], messages: [{ role: 'user', content: 'Weather in Oslo?' }] }).finalMessage();
    expect(message.content).toHaveLength(2);
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Let me check. ' });
    expect(message.content[1]).toEqual({ type: 'tool_use', id: 'call_9', name: 'get_weather', input: { city: 'Oslo' } });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 30, output_tokens: 9 });
  });

  it('falls back from an overloaded Claude to the other model with the same body, Claude\'s thinking of earlier turns left out', async () => {
    messages.script({ path: '/v1/messages', status: 529 });
    const before = chats().length;
    const { data, response } = await client('claude-then-gpt').messages.create({
      model: 'claude-sonnet-4-5', max_tokens: 128,
      messages: [
        { role: 'user', content: 'First question' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'Let me think.', signature: 'c2lnbmVk' }, { type: 'text', text: 'First answer' }] },
        { role: 'user', content: 'Second question' },
      ],
    }).withResponse();
    expect(response.headers.get('x-gateway-provider')).toBe('vendor');
    expect(textOf(data)).toContain('Second question');
    expect((chats().slice(before)[0]!.json as { messages: unknown }).messages).toEqual([
      { role: 'user', content: 'First question' }, { role: 'assistant', content: 'First answer' }, { role: 'user', content: 'Second question' },
    ]);
  });

  it('takes a coding agent\'s turn as it sends it: effort and structured output reach the model, Claude\'s own answer sent back and its prompt-cache hints left out', async () => {
    const before = chats().length;
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    // The members a coding agent sends on Claude's newest models, its last turn Claude's answer as it came back.
    const body = {
      model: 'claude-opus-4-6', max_tokens: 512, stream: true,
      system: [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }],
      thinking: { type: 'adaptive' }, output_config: { effort: 'max', format: { type: 'json_schema', schema } }, cache_control: { type: 'ephemeral' },
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
      metadata: { user_id: 'agent-session' },
      tools: [{ ...WEATHER_TOOL, strict: true, cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'The tool knows.', signature: 'c2ln' }, { type: 'text', text: 'Checking.', citations: null }, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' }, caller: { type: 'direct' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C', is_error: false, cache_control: { type: 'ephemeral' } }] },
      ],
    };
    const message = await client('gpt').messages.stream(body as unknown as Anthropic.MessageStreamParams).finalMessage();
    expect(message.stop_reason).toBe('end_turn');
    expect(chats().slice(before)[0]!.json).toEqual({
      model: 'gpt-4o-mini', stream: true, max_completion_tokens: 512, user: 'agent-session',
      reasoning_effort: 'xhigh', response_format: { type: 'json_schema', json_schema: { name: 'output', schema, strict: true } },
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters: WEATHER_TOOL.input_schema, strict: true } }],
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'toolu_1', content: '18°C' },
      ],
    });
  });

  it('judges the call as the messages API\'s own: its prompt before the provider is asked, its streamed answer rewritten', async () => {
    const before = chats().length;
    const denied = await client('gpt-guarded').messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Tell me the secret' }] }).catch((e: unknown) => e);
    expect((denied as { status?: number }).status).toBe(446);
    expect(chats().length).toBe(before);
    const message = await client('gpt-guarded').messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: `Write to ${EMAIL}` }] }).finalMessage();
    expect(textOf(message)).toContain('[EMAIL]');
    expect(textOf(message)).not.toContain(EMAIL);
  });

  it('gives the provider\'s errors back in the messages API\'s shape, as the SDK\'s errors of that status', async () => {
    vendor.script({ path: '/v1/chat/completions', status: 429 });
    const error = await client('gpt').messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect((error as { error?: unknown }).error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });

  it('reads an error a provider dresses as a 200 as the error it is, not an empty message', async () => {
    vendor.script({ path: '/v1/chat/completions', body: JSON.stringify({ error: { message: 'Upstream overloaded', type: 'server_error', code: null } }), contentType: 'application/json' });
    const error = await client('gpt').messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as { error?: unknown }).error).toEqual({ type: 'error', error: { type: 'api_error', message: 'Upstream overloaded' } });
  });

  it('refuses what only Claude has, naming it, before the provider is asked', async () => {
    const before = chats().length;
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, '/tools/0/type'],
      [{ top_k: 5 }, '/top_k'],
      [{ mcp_servers: [] }, '/mcp_servers'],
      [{ inference_geo: 'us' }, '/inference_geo'],
      [{ tools: [{ ...WEATHER_TOOL, defer_loading: true }] }, '/tools/0/defer_loading'],
      [{ messages: [{ role: 'user', content: [{ type: 'search_result', source: 'https://example.com', title: 'x', content: [] }] }] }, '/messages/0/content/0/type'],
      [{ messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } }] }] }, '/messages/0/content/0/source'],
    ];
    for (const [extra, pointer] of refusals) {
      const response = await fetch(`${served.gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'gpt', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], ...extra }),
      });
      expect(response.status, pointer).toBe(400);
      expect(((await response.json()) as any).error, pointer).toMatchObject({ code: 'unsupported_parameter', param: pointer });
    }
    expect(chats().length).toBe(before);
  });
});

describe('the messages API\'s token count of a model the vendor answers as a chat', () => {
  const counts = () => vendor.requests.filter((r) => r.path === '/v1/responses/input_tokens');

  it('is the vendor\'s own count of the chat\'s input, asked of its Responses API, not metered', async () => {
    const png = Buffer.from('PNG screenshot').toString('base64');
    // A coding agent's count between turns: its system prompt, tools, thinking, an earlier tool call and its result with a screenshot.
    const body = {
      model: 'claude-sonnet-4-5',
      system: [{ type: 'text' as const, text: 'You are a coding agent.', cache_control: { type: 'ephemeral' as const } }],
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      tools: [{ name: 'Read', description: 'Reads a file from disk', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } }, required: ['path'] } }],
      tool_choice: { type: 'auto' as const, disable_parallel_tool_use: true },
      messages: [
        { role: 'user' as const, content: 'What does shot.png show?' },
        { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'Reading it.' }, { type: 'tool_use' as const, id: 'toolu_1', name: 'Read', input: { path: 'shot.png' } }] },
        { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_1', content: [{ type: 'text' as const, text: 'A cat' }, { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: png } }] }, { type: 'text' as const, text: 'And now?' }] },
      ],
    };
    const trace = randomUUID();
    const counted = await client('gpt', trace).messages.countTokens(body);
    const sent = counts().at(-1)!.json as Record<string, unknown>;
    expect(sent).toEqual({
      model: 'gpt-4o-mini',
      input: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'What does shot.png show?' },
        { role: 'assistant', content: 'Reading it.' },
        { type: 'function_call', call_id: 'toolu_1', name: 'Read', arguments: '{"path":"shot.png"}' },
        { type: 'function_call_output', call_id: 'toolu_1', output: 'A cat' },
        { role: 'user', content: [{ type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' }, { type: 'input_text', text: 'And now?' }] },
      ],
      tools: [{ type: 'function', name: 'Read', description: 'Reads a file from disk', parameters: body.tools[0]!.input_schema, strict: false }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning: { effort: 'low' },
    });
    expect(counted).toEqual({ input_tokens: inputTokensOf(sent) });
    const record = await logged(trace);
    expect(record).toMatchObject({ provider: 'vendor', status: 200, usage: null, cost_usd: null });
  });

  it('counts the input of a structured answer with its schema, as the chat would send it', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    await client('gpt').messages.countTokens({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hi' }], output_config: { format: { type: 'json_schema', schema } } } as never);
    expect(counts().at(-1)!.json).toMatchObject({ text: { format: { type: 'json_schema', name: 'output', schema, strict: true } } });
  });

  it('gives the vendor\'s refusal back in the messages API\'s shape', async () => {
    vendor.script({ path: '/v1/responses/input_tokens', status: 429 });
    const error = await client('gpt').messages.countTokens({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect((error as { error?: unknown }).error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });

  it('is a vLLM server\'s own tokenization of the chat, which agrees with the usage of the chat it stands for', async () => {
    const tokenizations = () => vendor.requests.filter((r) => r.path === '/tokenize');
    const body = {
      model: 'claude-sonnet-4-5', max_tokens: 64, system: 'Answer in one word.',
      tools: [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } } }],
      messages: [{ role: 'user' as const, content: 'How many tokens is this question?' }],
    };
    const counted = await client('vllm').messages.countTokens(body);
    const sent = tokenizations().at(-1)!;
    expect(sent.method).toBe('POST');
    expect(sent.json).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'system', content: 'Answer in one word.' }, { role: 'user', content: 'How many tokens is this question?' }],
      tools: [{ type: 'function', function: { name: 'Read', description: 'Reads a file', parameters: body.tools[0]!.input_schema } }],
    });
    const answered = await client('vllm').messages.create(body);
    expect(counted).toEqual({ input_tokens: answered.usage.input_tokens });
  });

  it('stays refused on a server of the vendor\'s chat API that counts nothing, naming the provider', async () => {
    const before = counts().length;
    for (const config of ['groq', 'clouda']) {
      const refused = await client(config).messages.countTokens({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
      expect((refused as { status?: number }).status, config).toBe(400);
      expect(JSON.stringify((refused as { error?: unknown }).error), config).toContain('has no token count');
    }
    expect(counts().length).toBe(before);
  });
});
