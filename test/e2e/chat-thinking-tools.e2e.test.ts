// Extended thinking with tools through the chat completions translation to the messages API, as an
// OpenAI SDK agent runs it: the first call answers tool calls (the model's thinking as
// reasoning_content), the agent runs the tools and sends the assistant message and the results back,
// and the provider gets the assistant turn beginning with its signed thinking, unchanged (the mock
// refuses a turn without it, or with a thinking block whose text changed, as the API does). Streamed
// or not; with the reasoning redacted for the client by an output check; another organisation, or an
// assistant message making other calls than the answer did, gets nothing put back. Across processes on one Redis:
// test/e2e/reasoning-processes.test.ts.
import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveTranslatedFamilies, type TranslatedFamilies } from './translated-families.ts';

const KEY = 'gw-chat-thinking-tools';
const EMAIL = 'jane.doe@example.com';

let families: TranslatedFamilies;

beforeAll(async () => {
  families = await serveTranslatedFamilies('chat-thinking-tools', KEY, (targets) => ({
    claude: targets.anthropic,
    'claude-redacted': { ...targets.anthropic, output_guardrails: [{ id: 'pii', 'default.piiRedact': {} }] },
    gemini: targets.cloudb,
    'cloudc-claude': targets.cloudc,
    'claude-cached': { ...targets.anthropic, cache: { mode: 'simple' } },
  }));
});

afterAll(() => families?.close());

const client = (config: string, key = KEY) => new OpenAI({ baseURL: `${families.served.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': key, 'x-gateway-config': config } });
const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup', description: 'Looks it up', parameters: { type: 'object', properties: {} } } }];
/** The messages API's thinking parameter, which the translation passes on. */
const THINKING = { thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 2048 } as Record<string, unknown>;
/** The model and parameters a config's conversation is asked with: a Claude model with thinking, or a Gemini 3 model (which always thinks). */
const ASKED: Record<string, Record<string, unknown>> = { gemini: { model: 'gemini-3-pro-preview' } };
const askedOf = (config: string): Record<string, unknown> => ASKED[config] ?? { model: 'claude-sonnet-4-0', ...THINKING };

/** An assistant message that calls tools, as an agent keeps it. */
type Calls = { role: 'assistant'; content: string | null; tool_calls: OpenAI.Chat.Completions.ChatCompletionMessageToolCall[] };

/** The first call's assistant message, streamed (assembled as an agent does) or not. */
async function firstTurn(config: string, question: string, stream: boolean, key = KEY): Promise<{ message: Calls; reasoning: string }> {
  const body = { messages: [{ role: 'user' as const, content: question }], tools: TOOLS, ...askedOf(config) };
  if (!stream) {
    const answer = await client(config, key).chat.completions.create(body as never) as OpenAI.Chat.Completions.ChatCompletion;
    const message = answer.choices[0]!.message as OpenAI.Chat.Completions.ChatCompletionMessage & { reasoning_content?: string };
    return { message: { role: 'assistant', content: message.content, tool_calls: message.tool_calls ?? [] }, reasoning: message.reasoning_content ?? '' };
  }
  const chunks = await client(config, key).chat.completions.create({ ...body, stream: true } as never) as unknown as AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>;
  let reasoning = '';
  let content = '';
  const calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> = [];
  for await (const chunk of chunks) {
    const delta = chunk.choices[0]?.delta as (OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string }) | undefined;
    if (delta === undefined) continue;
    reasoning += delta.reasoning_content ?? '';
    content += delta.content ?? '';
    for (const call of delta.tool_calls ?? []) {
      const held = (calls[call.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      if (call.id !== undefined) held.id = call.id;
      if (call.function?.name !== undefined) held.function.name += call.function.name;
      held.function.arguments += call.function?.arguments ?? '';
    }
  }
  return { message: { role: 'assistant', content: content === '' ? null : content, tool_calls: calls }, reasoning };
}

/** The conversation's second call: the question, the assistant message as the agent keeps it, and each call's result. */
function secondTurn(config: string, question: string, message: Calls, key = KEY) {
  const results: ChatCompletionMessageParam[] = message.tool_calls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: 'done' }));
  return client(config, key).chat.completions.create({ messages: [{ role: 'user', content: question }, message, ...results], tools: TOOLS, ...askedOf(config) } as never) as Promise<OpenAI.Chat.Completions.ChatCompletion>;
}

/** The assistant turn the provider got last. */
const sentAssistantTurn = (): any[] => (families.messages.requests.at(-1)!.json as any).messages[1].content;

describe('extended thinking with tools through the chat translation', () => {
  for (const stream of [false, true]) {
    it(`the tool results' turn gives the provider the assistant turn with its signed thinking${stream ? ', streamed' : ''}`, async () => {
      const question = `look up the weather ${stream ? 'streamed' : 'now'}`;
      const { message, reasoning } = await firstTurn('claude', question, stream);
      expect(message.tool_calls.length).toBe(1);
      expect(reasoning).toBe(`[messages] thinking about: ${question}`);
      // The agent keeps only what the chat shape has (an SDK's message, or one it rebuilt).
      const rebuilt: Calls = { role: 'assistant', content: message.content, tool_calls: message.tool_calls };
      const second = await secondTurn('claude', question, rebuilt);
      expect(second.choices[0]!.message.content).toContain('tool said done');
      const turn = sentAssistantTurn();
      expect(turn[0]).toMatchObject({ type: 'thinking', thinking: `[messages] thinking about: ${question}` });
      expect(typeof turn[0].signature).toBe('string');
      expect(turn.at(-1)).toMatchObject({ type: 'tool_use', id: message.tool_calls[0]!.id });
    });
  }

  for (const stream of [false, true]) {
    it(`through cloud C's converse too: the reasoning block and its signature go back before the tool call${stream ? ', streamed' : ''}`, async () => {
      const question = `look up the rain ${stream ? 'streamed' : 'now'}`;
      const { message, reasoning } = await firstTurn('cloudc-claude', question, stream);
      expect(reasoning).toBe(`[cloudc] thinking about: ${question}`);
      const second = await secondTurn('cloudc-claude', question, { role: 'assistant', content: message.content, tool_calls: message.tool_calls });
      expect(second.choices[0]!.message.content).toContain('tool said done');
      const sent = (families.cloudc.requests.at(-1)!.json as any);
      expect(sent.additionalModelRequestFields).toEqual({ thinking: THINKING.thinking });
      expect(sent.messages[1].content[0].reasoningContent.reasoningText).toMatchObject({ text: `[cloudc] thinking about: ${question}` });
      expect(sent.messages[1].content.at(-1).toolUse.toolUseId).toBe(message.tool_calls[0]!.id);
    });
  }

  for (const stream of [false, true]) {
    it(`through cloud B, a Gemini 3 model's function call gets its thought signature back${stream ? ', streamed' : ''}`, async () => {
      const question = `look up the snow ${stream ? 'streamed' : 'now'}`;
      const { message } = await firstTurn('gemini', question, stream);
      expect(message.tool_calls.length).toBe(1);
      const second = await secondTurn('gemini', question, { role: 'assistant', content: message.content, tool_calls: message.tool_calls });
      expect(second.choices[0]!.message.content).toContain('tool said');
      const sent = families.cloudb.requests.filter((r) => r.path.includes(':generateContent') || r.path.includes(':streamGenerateContent')).at(-1)!.json as any;
      const call = sent.contents[1].parts.find((p: any) => p.functionCall !== undefined);
      expect(typeof call.thoughtSignature).toBe('string');
    });
  }

  it('with the reasoning redacted for the client, the provider still gets the thinking as the model wrote it', async () => {
    const question = `look up ${EMAIL}`;
    const { message, reasoning } = await firstTurn('claude-redacted', question, false);
    expect(reasoning).toBe('[messages] thinking about: look up [EMAIL]');
    const second = await secondTurn('claude-redacted', question, { role: 'assistant', content: null, tool_calls: message.tool_calls });
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(sentAssistantTurn()[0]).toMatchObject({ type: 'thinking', thinking: `[messages] thinking about: ${question}` });
  });

  it('another organisation sending the same calls gets nothing put back; the organisation that asked does', async () => {
    const other = await families.served.gateway.store.apiKeys.create({ scope: 'admin', organisationId: randomUUID() });
    await families.served.gateway.store.changes.refresh();
    const question = 'look up the moon';
    const { message } = await firstTurn('claude', question, false);
    const theirs = await secondTurn('claude', question, message, other.key).then(() => null, (error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
    expect(theirs?.status).toBe(400);
    expect(theirs?.message).toContain('must start with a thinking block');
    expect((await secondTurn('claude', question, message)).choices[0]!.finish_reason).toBe('stop');
  });

  for (const stream of [false, true]) {
    it(`an answer the cache serves to another organisation carries its thinking there: that organisation's tool results turn works${stream ? ', streamed' : ''}`, async () => {
      const other = await families.served.gateway.store.apiKeys.create({ scope: 'admin', organisationId: randomUUID() });
      await families.served.gateway.store.changes.refresh();
      const question = `look up the comet ${stream ? 'streamed' : 'now'}`;
      const asked = () => families.messages.requests.filter((r) => r.path === '/v1/messages').length;
      const ours = await firstTurn('claude-cached', question, stream);
      const before = asked();
      // The same first turn from another organisation is a cache hit: the provider is not asked, the calls are the same.
      const theirs = await firstTurn('claude-cached', question, stream, other.key);
      expect(asked()).toBe(before);
      expect(theirs.message.tool_calls.map((call) => call.id)).toEqual(ours.message.tool_calls.map((call) => call.id));
      const second = await secondTurn('claude-cached', question, theirs.message, other.key);
      expect(second.choices[0]!.message.content).toContain('tool said done');
      expect(sentAssistantTurn()[0]).toMatchObject({ type: 'thinking', thinking: `[messages] thinking about: ${question}` });
    });
  }

  it('an assistant message making other calls than the answer did gets nothing put back: the provider\'s refusal comes back', async () => {
    const question = 'look up the tides';
    const { message } = await firstTurn('claude', question, false);
    const other = { ...message.tool_calls[0]!, id: 'toolu_made_up_by_the_client' };
    const refused = await secondTurn('claude', question, { role: 'assistant', content: null, tool_calls: [other] }).then(() => null, (error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
    expect(refused?.status).toBe(400);
    expect(refused?.message).toContain('must start with a thinking block');
  });
});

describe.each(['claude', 'cloudc-claude'] as const)('a conversation whose tool calls another provider made (%s)', (config) => {
  it('reaches Claude with ids it takes, the call and its result still a pair', async () => {
    // Kimi's ids, in an alphabet Claude's hosts refuse: a fallback or a change of model sends them on.
    const calls = [
      { id: 'functions.lookup:0', type: 'function' as const, function: { name: 'lookup', arguments: '{}' } },
      { id: 'functions.lookup:1', type: 'function' as const, function: { name: 'lookup', arguments: '{}' } },
    ];
    const messages: ChatCompletionMessageParam[] = [
      { role: 'user', content: 'look up the moon' },
      { role: 'assistant', content: null, tool_calls: calls },
      { role: 'tool', tool_call_id: 'functions.lookup:1', content: 'waxing' },
      { role: 'tool', tool_call_id: 'functions.lookup:0', content: 'full' },
    ];
    const model = config === 'claude' ? 'claude-sonnet-4-0' : 'us.anthropic.claude-sonnet-4-0';
    const answer = await client(config).chat.completions.create({ model, messages, tools: TOOLS });
    expect(answer.choices[0]!.message.content).toContain('tool said');
    const mock = config === 'claude' ? families.messages : families.cloudc;
    const sent = JSON.stringify(mock.requests.at(-1)!.json);
    const ids = [...sent.matchAll(/"(?:id|tool_use_id|toolUseId)":"(functions[^"]*)"/g)].map((match) => match[1]!);
    expect(ids).toHaveLength(4);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    // Each result names its own call: the two calls differ, and the pairs hold.
    expect(new Set(ids).size).toBe(2);
  });
});
