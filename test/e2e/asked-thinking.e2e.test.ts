// The chat API's reasoning_effort, sent by the official OpenAI SDK through the gateway to the
// families that ask for thinking otherwise, against mocks that check the thinking the way the
// services do (Claude: budget of at least 1,024, below max_tokens, temperature 1; Gemini: a level
// for Gemini 3 and later, a budget before, 2.5 Pro unable to stop thinking) and count thought
// tokens as the config asks. A Claude agent with tools and an effort runs its second turn unchanged
// (the thinking is put back as for `thinking`); the emulated Responses API's reasoning.effort goes the
// same way, a Responses agent chaining tool results by previous_response_id included, and its
// reasoning.summary "auto" gives the reasoning's text as a reasoning item (streamed or not); what no mapping can honour is refused before any request is sent. Claude's own
// `thinking` sent to Gemini asks for its budget and the thoughts, answered as reasoning_content.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveTranslatedFamilies, type TranslatedFamilies } from './translated-families.ts';

const KEY = 'gw-asked-thinking';

let families: TranslatedFamilies;

beforeAll(async () => {
  families = await serveTranslatedFamilies('asked-thinking', KEY, (targets) => ({
    claude: targets.anthropic,
    gemini: targets.cloudb,
    'claude-then-gemini': { strategy: { mode: 'fallback', on_status_codes: [529] }, targets: [targets.anthropic, { ...targets.cloudb, override_params: { model: 'gemini-2.5-flash' } }] },
    converse: targets.cloudc,
  }));
});

afterAll(() => families?.close());

const client = (config: string) => new OpenAI({ baseURL: `${families.served.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': KEY, 'x-gateway-config': config } });
const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup', description: 'Looks it up', parameters: { type: 'object', properties: {} } } }];
const CLAUDE_MODEL = { claude: 'claude-sonnet-4-5', converse: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' } as const;
type Chat = OpenAI.Chat.Completions.ChatCompletion;
type Reasoned = OpenAI.Chat.Completions.ChatCompletionMessage & { reasoning_content?: string };

/** A Claude model taking adaptive thinking, per config. */
const ADAPTIVE_MODEL = { claude: 'claude-opus-4-7', converse: 'us.anthropic.claude-opus-4-7' } as const;

/** The body the mock behind a Claude config got last, read as (thinking, effort, limit); an absent effort is undefined, which toEqual ignores. */
function sentThinking(config: 'claude' | 'converse'): { thinking: unknown; effort: unknown; limit: unknown } {
  if (config === 'claude') {
    const body = families.messages.requests.at(-1)!.json as Record<string, any>;
    return { thinking: body.thinking, effort: body.output_config?.effort, limit: body.max_tokens };
  }
  const body = families.cloudc.requests.at(-1)!.json as Record<string, any>;
  return { thinking: body.additionalModelRequestFields?.thinking, effort: body.outputConfig?.effort, limit: body.inferenceConfig?.maxTokens };
}

/**
 * An agent's two turns with tools and an effort, keeping only what the chat shape holds: the first
 * answers one tool call, the second sends its result back. The second answer's text.
 */
async function agentTurns(config: string, model: string, effort: 'low' | 'high', question: string): Promise<string> {
  const first = await client(config).chat.completions.create({ model, messages: [{ role: 'user', content: question }], tools: TOOLS, reasoning_effort: effort });
  const calls = first.choices[0]!.message.tool_calls ?? [];
  expect(calls.length).toBe(1);
  const second = await client(config).chat.completions.create({
    model, tools: TOOLS, reasoning_effort: effort,
    messages: [{ role: 'user', content: question }, { role: 'assistant', content: first.choices[0]!.message.content, tool_calls: calls }, { role: 'tool', tool_call_id: calls[0]!.id, content: 'done' }],
  });
  return second.choices[0]!.message.content ?? '';
}

/** The GatewayError body the SDK threw, or null. */
async function refused(call: Promise<unknown>): Promise<{ status: number; code: unknown; param: unknown; message: string } | null> {
  try {
    await call;
    return null;
  } catch (error) {
    if (!(error instanceof OpenAI.APIError)) throw error;
    const body = error.error as { code?: unknown; param?: unknown; message?: string } | undefined;
    return { status: error.status ?? 0, code: body?.code, param: body?.param, message: body?.message ?? error.message };
  }
}

describe.each(['claude', 'converse'] as const)('reasoning_effort to a Claude model (%s)', (config) => {
  const model = CLAUDE_MODEL[config];
  const label = config === 'claude' ? 'messages' : 'cloudc';

  it('asks for thinking with the effort\'s budget and room for the answer; the thinking comes back as reasoning_content', async () => {
    const answer = await client(config).chat.completions.create({ model, messages: [{ role: 'user', content: 'why is the sky blue' }], reasoning_effort: 'medium' });
    expect(sentThinking(config)).toEqual({ thinking: { type: 'enabled', budget_tokens: 8192 }, limit: 8192 + 4096 });
    expect((answer.choices[0]!.message as Reasoned).reasoning_content).toBe(`[${label}] thinking about: why is the sky blue`);
    const limited = await client(config).chat.completions.create({ model, messages: [{ role: 'user', content: 'and the sea' }], reasoning_effort: 'low', max_completion_tokens: 3000 });
    expect(sentThinking(config)).toEqual({ thinking: { type: 'enabled', budget_tokens: 1024 }, limit: 3000 });
    expect(limited.choices[0]!.message.content).toContain('and the sea');
  });

  it('an agent with tools and an effort runs its second turn unchanged: the signed thinking is put back', async () => {
    await expect(agentTurns(config, model, 'low', `look it up with effort through ${config}`)).resolves.toContain('tool said done');
  });

  it('none asks for no thinking', async () => {
    const answer = await client(config).chat.completions.create({ model, messages: [{ role: 'user', content: 'quick one' }], reasoning_effort: 'none' });
    expect(sentThinking(config).thinking).toBeUndefined();
    expect((answer.choices[0]!.message as Reasoned).reasoning_content).toBeUndefined();
  });

  it('refuses, sending nothing, a limit the budget does not fit under and thinking sent beside an effort; relays the model\'s refusal of a temperature', async () => {
    const mock = config === 'claude' ? families.messages : families.cloudc;
    const before = mock.requests.length;
    const small = await refused(client(config).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'high', max_completion_tokens: 2000 }));
    expect(small).toMatchObject({ status: 400, code: 'invalid_request_body', param: '/reasoning_effort' });
    expect(small?.message).toContain('above 24576');
    const both = await refused(client(config).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'low', thinking: { type: 'enabled', budget_tokens: 2048 } } as never));
    expect(both).toMatchObject({ status: 400, code: 'invalid_request_body', param: '/reasoning_effort' });
    const unknown = await refused(client(config).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'max' } as never));
    expect(unknown).toMatchObject({ status: 400, code: 'invalid_request_body', param: '/reasoning_effort' });
    expect(mock.requests.length).toBe(before);
    const warm = await refused(client(config).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'low', temperature: 0.2 }));
    expect(warm?.status).toBe(400);
    expect(warm?.message).toContain('`temperature` may only be set to 1 when thinking is enabled');
  });
});

describe.each(['claude', 'converse'] as const)('reasoning_effort to a Claude model taking adaptive thinking (%s)', (config) => {
  const model = ADAPTIVE_MODEL[config];
  const label = config === 'claude' ? 'messages' : 'cloudc';

  it('asks for adaptive thinking at Claude\'s level for the effort, with room for the answer; the thinking comes back as reasoning_content', async () => {
    const answer = await client(config).chat.completions.create({ model, messages: [{ role: 'user', content: 'think long' }], reasoning_effort: 'xhigh' });
    expect(sentThinking(config)).toEqual({ thinking: { type: 'adaptive' }, effort: 'xhigh', limit: 32768 + 4096 });
    expect((answer.choices[0]!.message as Reasoned).reasoning_content).toBe(`[${label}] thinking about: think long`);
    // Claude has no minimal level: its least, low. A client's limit is sent as it is (no budget to fit).
    await client(config).chat.completions.create({ model, messages: [{ role: 'user', content: 'think briefly' }], reasoning_effort: 'minimal', max_completion_tokens: 500 });
    expect(sentThinking(config)).toEqual({ thinking: { type: 'adaptive' }, effort: 'low', limit: 500 });
    await client(config).chat.completions.create({ model, messages: [{ role: 'user', content: 'do not think' }], reasoning_effort: 'none' });
    // No limit of its own: the messages API's required default; converse none.
    expect(sentThinking(config)).toEqual({ thinking: { type: 'disabled' }, limit: config === 'claude' ? 4096 : undefined });
  });

  it('an agent with tools and an effort runs its second turn unchanged: the signed thinking is put back', async () => {
    await expect(agentTurns(config, model, 'high', `look it up adaptively through ${config}`)).resolves.toContain('tool said done');
  });

  it('relays what the model refuses: a level it lacks, thinking it cannot turn off, a budget it no longer takes', async () => {
    const older = config === 'claude' ? 'claude-sonnet-4-6' : 'anthropic.claude-sonnet-4-6';
    const xhigh = await refused(client(config).chat.completions.create({ model: older, messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'xhigh' }));
    expect(xhigh?.status).toBe(400);
    expect(xhigh?.message).toContain(`'xhigh' is not supported on this model`);
    const mythos = config === 'claude' ? 'claude-mythos-5' : 'anthropic.claude-mythos-5';
    const off = await refused(client(config).chat.completions.create({ model: mythos, messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'none' }));
    expect(off?.message).toContain('"thinking.type.disabled" is not supported for this model');
    // Claude's own thinking passes as sent: the budget form, which this model no longer takes, is its 400.
    const budget = await refused(client(config).chat.completions.create({ model, max_tokens: 4096, messages: [{ role: 'user', content: 'hi' }], thinking: { type: 'enabled', budget_tokens: 2048 } } as never));
    expect(budget?.message).toContain('"thinking.type.enabled" is not supported for this model');
  });
});

it('converse refuses an effort for a model that is not Claude', async () => {
  const before = families.cloudc.requests.length;
  const error = await refused(client('converse').chat.completions.create({ model: 'amazon.nova-pro-v1:0', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'low' }));
  expect(error).toMatchObject({ status: 400, code: 'unsupported_parameter', param: 'reasoning_effort' });
  expect(families.cloudc.requests.length).toBe(before);
});

describe('reasoning_effort to Gemini', () => {
  const sentConfig = () => (families.cloudb.requests.at(-1)!.json as Record<string, any>).generationConfig?.thinkingConfig;
  const reasoningTokens = (answer: Chat) => answer.usage?.completion_tokens_details?.reasoning_tokens;

  it('before Gemini 3: the effort\'s budget, the model thinking as much as it allows; none: no thinking', async () => {
    const high = await client('gemini').chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'think hard' }], reasoning_effort: 'high' });
    expect(sentConfig()).toEqual({ thinkingBudget: 24576, includeThoughts: true });
    expect(reasoningTokens(high)).toBe(384);
    expect((high.choices[0]!.message as Reasoned).reasoning_content).toBe('[cloudb] thinking about: think hard');
    const low = await client('gemini').chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'think a little' }], reasoning_effort: 'low' });
    expect(reasoningTokens(low)).toBe(16);
    const none = await client('gemini').chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'do not think' }], reasoning_effort: 'none' });
    expect(sentConfig()).toEqual({ thinkingBudget: 0 });
    expect(reasoningTokens(none)).toBe(0);
    expect((none.choices[0]!.message as Reasoned).reasoning_content).toBeUndefined();
    // 2.5 Pro cannot stop thinking: the service's refusal comes back.
    const pro = await refused(client('gemini').chat.completions.create({ model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'do not think' }], reasoning_effort: 'none' }));
    expect(pro?.status).toBe(400);
    expect(pro?.message).toContain('only works in thinking mode');
  });

  it('Gemini 3: the effort as its level, streamed too; none and xhigh refused before sending', async () => {
    const low = await client('gemini').chat.completions.create({ model: 'gemini-3-flash-preview', messages: [{ role: 'user', content: 'level low' }], reasoning_effort: 'low' });
    expect(sentConfig()).toEqual({ thinkingLevel: 'low', includeThoughts: true });
    expect(reasoningTokens(low)).toBe(16);
    const stream = await client('gemini').chat.completions.create({ model: 'gemini-3-flash-preview', messages: [{ role: 'user', content: 'level medium' }], reasoning_effort: 'medium', stream: true, stream_options: { include_usage: true } });
    let usage: OpenAI.Completions.CompletionUsage | undefined;
    for await (const chunk of stream) usage = chunk.usage ?? usage;
    expect(sentConfig()).toEqual({ thinkingLevel: 'medium', includeThoughts: true });
    expect(usage?.completion_tokens_details?.reasoning_tokens).toBe(128);
    const before = families.cloudb.requests.length;
    for (const effort of ['none', 'xhigh'] as const) {
      const error = await refused(client('gemini').chat.completions.create({ model: 'gemini-3-pro-preview', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: effort }));
      expect(error, effort).toMatchObject({ status: 400, code: 'unsupported_parameter', param: 'reasoning_effort' });
    }
    expect(families.cloudb.requests.length).toBe(before);
  });

  it('Claude\'s thinking: its budget, the thoughts answered as reasoning_content, streamed or not', async () => {
    const thinking = { type: 'enabled', budget_tokens: 2048 };
    const answer = await client('gemini').chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'think it over' }], thinking } as never) as Chat;
    expect(sentConfig()).toEqual({ thinkingBudget: 2048, includeThoughts: true });
    expect((answer.choices[0]!.message as Reasoned).reasoning_content).toBe('[cloudb] thinking about: think it over');
    expect(answer.choices[0]!.message.content).not.toContain('thinking about');
    expect(reasoningTokens(answer)).toBe(32);
    const stream = await client('gemini').chat.completions.create({ model: 'gemini-3-flash-preview', messages: [{ role: 'user', content: 'think in a stream' }], thinking, stream: true } as never) as unknown as AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>;
    let reasoning = '';
    let content = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { reasoning_content?: string; content?: string | null } | undefined;
      reasoning += delta?.reasoning_content ?? '';
      content += delta?.content ?? '';
    }
    expect(reasoning).toBe('[cloudb] thinking about: think in a stream');
    expect(content).toContain('think in a stream');
    // One body for both: Claude overloaded, the fallback to Gemini thinks as Claude was asked to.
    families.messages.script({ path: '/v1/messages', status: 529 });
    const fellBack = await client('claude-then-gemini').chat.completions.create({ model: 'claude-sonnet-4-5', max_tokens: 4096, messages: [{ role: 'user', content: 'fall back and think' }], thinking } as never) as Chat;
    expect(sentConfig()).toEqual({ thinkingBudget: 2048, includeThoughts: true });
    expect((fellBack.choices[0]!.message as Reasoned).reasoning_content).toBe('[cloudb] thinking about: fall back and think');
    const off = await client('gemini').chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'no thoughts' }], thinking: { type: 'disabled' } } as never) as Chat;
    expect(sentConfig()).toEqual({ thinkingBudget: 0 });
    expect((off.choices[0]!.message as Reasoned).reasoning_content).toBeUndefined();
  });
});

it('the emulated Responses API\'s reasoning.effort reaches Claude as thinking; a refusal names the Responses field', async () => {
  const created = await client('claude').responses.create({ model: 'claude-sonnet-4-5', input: 'explain tides', reasoning: { effort: 'low' } });
  expect(created.status).toBe('completed');
  expect(sentThinking('claude')).toEqual({ thinking: { type: 'enabled', budget_tokens: 1024 }, limit: 1024 + 4096 });
  const error = await refused(client('claude').responses.create({ model: 'claude-sonnet-4-5', input: 'explain tides', reasoning: { effort: 'high' }, max_output_tokens: 1000 }));
  expect(error).toMatchObject({ status: 400, code: 'invalid_request_body', param: '/reasoning/effort' });
  expect(error?.message).toContain('"reasoning.effort" "high"');
  expect(error?.message).not.toMatch(/reasoning_effort|max_completion_tokens/);
});

it('a Responses agent with tools and reasoning.effort on Claude chains its tool results by previous_response_id: the signed thinking is put back', async () => {
  const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'lookup', description: 'Looks it up', parameters: { type: 'object', properties: {} }, strict: false }];
  const first = await client('claude').responses.create({ model: 'claude-sonnet-4-5', input: 'look it up with effort through responses', tools, reasoning: { effort: 'low' } });
  const call = first.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall | undefined;
  expect(call?.name).toBe('lookup');
  const second = await client('claude').responses.create({
    model: 'claude-sonnet-4-5', tools, reasoning: { effort: 'low' }, previous_response_id: first.id,
    input: [{ type: 'function_call_output', call_id: call!.call_id, output: 'done' }],
  });
  expect(second.output_text).toContain('tool said done');
  const turn = (families.messages.requests.at(-1)!.json as Record<string, any>).messages[1].content;
  expect(turn[0]).toMatchObject({ type: 'thinking', thinking: '[messages] thinking about: look it up with effort through responses' });
});

describe('the emulated Responses API\'s reasoning summary', () => {
  type Summarized = { type: string; summary?: Array<{ type: string; text: string }> };

  it.each(['claude', 'gemini'] as const)('summary auto: the reasoning\'s text as a reasoning item before the message (%s), streamed or not', async (config) => {
    const model = config === 'claude' ? 'claude-opus-4-7' : 'gemini-3-flash-preview';
    const label = config === 'claude' ? 'messages' : 'cloudb';
    const created = await client(config).responses.create({ model, input: 'why do cats purr', reasoning: { effort: 'medium', summary: 'auto' } });
    expect((created.output as Summarized[]).map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect((created.output[0] as Summarized).summary).toEqual([{ type: 'summary_text', text: `[${label}] thinking about: why do cats purr` }]);
    expect(created.output_text).toContain('why do cats purr');
    const stream = await client(config).responses.create({ model, input: 'why do dogs bark', reasoning: { effort: 'medium', summary: 'auto' }, stream: true });
    let summary = '';
    let done: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.reasoning_summary_text.delta') summary += event.delta;
      if (event.type === 'response.completed') done = event.response;
    }
    expect(summary).toBe(`[${label}] thinking about: why do dogs bark`);
    expect((done?.output as Summarized[] | undefined)?.map((item) => item.type)).toEqual(['reasoning', 'message']);
  });

  it('without the summary asked for, or without reasoning, no reasoning item; concise and detailed are refused', async () => {
    const plain = await client('claude').responses.create({ model: 'claude-opus-4-7', input: 'hello', reasoning: { effort: 'low' } });
    expect((plain.output as Summarized[]).map((item) => item.type)).toEqual(['message']);
    const unthought = await client('claude').responses.create({ model: 'claude-opus-4-7', input: 'hello', reasoning: { summary: 'auto' } });
    expect((unthought.output as Summarized[]).map((item) => item.type)).toEqual(['message']);
    for (const summary of ['concise', 'detailed'] as const) {
      const error = await refused(client('claude').responses.create({ model: 'claude-opus-4-7', input: 'hello', reasoning: { effort: 'low', summary } }));
      expect(error).toMatchObject({ status: 400, code: 'unsupported_parameter', param: '/reasoning/summary' });
    }
    const wrong = await refused(client('claude').responses.create({ model: 'claude-opus-4-7', input: 'hello', reasoning: { summary: 'brief' } } as never));
    expect(wrong).toMatchObject({ status: 400, code: 'invalid_request_body', param: '/reasoning/summary' });
  });
});
