// Prompt-cache breakpoints (cache_control on a part, a message or a tool) as each translating family
// sends them: on the messages API's block, as cloud C's cachePoint after the block, not at all to
// cloud B (which has no breakpoints). And the provider's cache counts as the vendor's usage.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../runtime/core/errors.ts';
import { toMessagesRequest } from '../../runtime/providers/anthropic/request.ts';
import { chatUsageOf } from '../../runtime/providers/anthropic/response.ts';
import { MessagesStreamMapper } from '../../runtime/providers/anthropic/stream.ts';
import { toGenerateContentRequest } from '../../runtime/providers/cloudb/request.ts';
import { usageOf as generateContentUsage } from '../../runtime/providers/cloudb/response.ts';
import { toConverseRequest } from '../../runtime/providers/cloudc/request.ts';
import { usageOf as converseUsage } from '../../runtime/providers/cloudc/response.ts';
import type { ChatRequest } from '../../runtime/providers/shared/chat.ts';

const EPHEMERAL = { type: 'ephemeral' } as const;
const chat = (request: Record<string, unknown>): ChatRequest => ({ model: 'm', ...request }) as unknown as ChatRequest;

describe('the messages API gets each mark on the block it ends', () => {
  it('parts of a user message, text and image', () => {
    const request = toMessagesRequest(chat({ messages: [{ role: 'user', content: [
      { type: 'text', text: 'context', cache_control: EPHEMERAL },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' }, cache_control: { type: 'ephemeral', ttl: '1h' } },
      { type: 'text', text: 'question' },
    ] }] }), 'anthropic');
    expect(request.messages[0].content).toEqual([
      { type: 'text', text: 'context', cache_control: EPHEMERAL },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' }, cache_control: { type: 'ephemeral', ttl: '1h' } },
      { type: 'text', text: 'question' },
    ]);
  });

  it('a system message is cut after each marked part; unmarked, it stays one block', () => {
    const request = toMessagesRequest(chat({ messages: [
      { role: 'system', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b', cache_control: EPHEMERAL }, { type: 'text', text: 'c' }] },
      { role: 'developer', content: [{ type: 'text', text: 'd' }, { type: 'text', text: 'e' }] },
      { role: 'user', content: 'q' },
    ] }), 'anthropic');
    expect(request.system).toEqual([{ type: 'text', text: 'ab', cache_control: EPHEMERAL }, { type: 'text', text: 'c' }, { type: 'text', text: 'de' }]);
  });

  it('a mark on a message ends its last block: a string content\'s text, an assistant\'s last tool call, a tool answer', () => {
    const request = toMessagesRequest(chat({ messages: [
      { role: 'system', content: 'rules', cache_control: EPHEMERAL },
      { role: 'user', content: 'weather?', cache_control: EPHEMERAL },
      { role: 'assistant', content: 'looking', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{}' } }], cache_control: EPHEMERAL },
      { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'sunny', cache_control: EPHEMERAL }] },
    ], tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } }, cache_control: EPHEMERAL }] }), 'anthropic');
    expect(request.system).toEqual([{ type: 'text', text: 'rules', cache_control: EPHEMERAL }]);
    expect(request.messages[0].content).toEqual([{ type: 'text', text: 'weather?', cache_control: EPHEMERAL }]);
    expect(request.messages[1].content).toEqual([{ type: 'text', text: 'looking' }, { type: 'tool_use', id: 'c1', name: 'weather', input: {}, cache_control: EPHEMERAL }]);
    expect(request.messages[2].content).toEqual([{ type: 'tool_result', tool_use_id: 'c1', content: 'sunny', cache_control: EPHEMERAL }]);
    expect(request.tools).toEqual([{ name: 'weather', input_schema: { type: 'object' }, cache_control: EPHEMERAL }]);
  });

  it('a mark on an empty part goes to the block before it, and with none before it is refused', () => {
    const request = toMessagesRequest(chat({ messages: [
      { role: 'system', content: 'rules' },
      { role: 'system', content: [{ type: 'text', text: '', cache_control: EPHEMERAL }] },
      { role: 'user', content: 'q' },
    ] }), 'anthropic');
    expect(request.system).toEqual([{ type: 'text', text: 'rules', cache_control: EPHEMERAL }]);
    const refused = (): unknown => toMessagesRequest(chat({ messages: [{ role: 'system', content: [{ type: 'text', text: '', cache_control: EPHEMERAL }] }, { role: 'user', content: 'q' }] }), 'anthropic');
    expect(refused).toThrowError(GatewayError);
    expect(refused).toThrowError(/cache_control mark on a system message with no content before it/);
  });

  it('a malformed mark is a 400 naming it', () => {
    for (const mark of [{ type: 'persistent' }, { type: 'ephemeral', ttl: '2h' }, { type: 'ephemeral', extra: 1 }, 'ephemeral']) {
      const refused = (): unknown => toMessagesRequest(chat({ messages: [{ role: 'user', content: [{ type: 'text', text: 'q', cache_control: mark }] }] }), 'anthropic');
      expect(refused).toThrowError(expect.objectContaining({ code: 'invalid_request_body', param: expect.stringMatching(/^\/messages\/0\/content\/0\/cache_control/) }));
    }
  });
});

describe('cloud C gets a cachePoint after each marked block; cloud B gets none', () => {
  it('in system, turns and tools', () => {
    const request = toConverseRequest(chat({ messages: [
      { role: 'system', content: [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral', ttl: '1h' } }, { type: 'text', text: 'b' }] },
      { role: 'user', content: [{ type: 'text', text: 'q', cache_control: EPHEMERAL }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{}' } }], cache_control: EPHEMERAL },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny', cache_control: EPHEMERAL },
    ], tools: [{ type: 'function', function: { name: 'weather' }, cache_control: EPHEMERAL }] }), 'cloudc');
    expect(request.system).toEqual([{ text: 'a' }, { cachePoint: { type: 'default', ttl: '1h' } }, { text: 'b' }]);
    expect(request.messages[0].content).toEqual([{ text: 'q' }, { cachePoint: { type: 'default' } }]);
    expect(request.messages[1].content).toEqual([{ toolUse: { toolUseId: 'c1', name: 'weather', input: {} } }, { cachePoint: { type: 'default' } }]);
    expect(request.messages[2].content).toEqual([{ toolResult: { toolUseId: 'c1', content: [{ text: 'sunny' }] } }, { cachePoint: { type: 'default' } }]);
    expect(request.toolConfig!.tools).toEqual([{ toolSpec: { name: 'weather', inputSchema: { json: { type: 'object', properties: {} } } } }, { cachePoint: { type: 'default' } }]);
  });

  it('a marked message whose last part is marked too is one breakpoint', () => {
    const request = toConverseRequest(chat({ messages: [{ role: 'user', content: [{ type: 'text', text: 'q', cache_control: EPHEMERAL }], cache_control: EPHEMERAL }] }), 'cloudc');
    expect(request.messages[0].content).toEqual([{ text: 'q' }, { cachePoint: { type: 'default' } }]);
  });

  it('cloud B\'s request is the same with and without marks', () => {
    const plain = [{ role: 'system', content: [{ type: 'text', text: 'rules' }] }, { role: 'user', content: [{ type: 'text', text: 'q' }] }];
    const marked = [{ role: 'system', content: [{ type: 'text', text: 'rules', cache_control: EPHEMERAL }] }, { role: 'user', content: [{ type: 'text', text: 'q' }], cache_control: EPHEMERAL }];
    expect(toGenerateContentRequest(chat({ messages: marked }), 'cloudb')).toEqual(toGenerateContentRequest(chat({ messages: plain }), 'cloudb'));
  });
});

// Text parts, some empty, some marked, the first never an empty marked one (refused, above).
const partsArb = fc.array(fc.record({ text: fc.oneof(fc.constant(''), fc.string({ minLength: 1, maxLength: 6 })), marked: fc.boolean() }), { minLength: 1, maxLength: 8 })
  .filter((parts) => parts[0].text !== '');

describe('property: a mark changes where blocks end, never the text, and both families place the same breakpoints', () => {
  test.prop([partsArb], { numRuns: 200 })('system parts', (parts) => {
    const content = parts.map((part) => ({ type: 'text', text: part.text, ...(part.marked ? { cache_control: EPHEMERAL } : {}) }));
    const request = chat({ messages: [{ role: 'system', content }, { role: 'user', content: 'q' }] });
    const messages = toMessagesRequest(request, 'anthropic');
    const converse = toConverseRequest(request, 'cloudc');
    const text = parts.map((part) => part.text).join('');
    expect((messages.system ?? []).map((block) => block.text).join('')).toBe(text);
    expect((converse.system ?? []).map((block) => ('text' in block ? block.text : '')).join('')).toBe(text);
    const marks = (messages.system ?? []).filter((block) => block.cache_control !== undefined).length;
    expect((converse.system ?? []).filter((block) => 'cachePoint' in block).length).toBe(marks);
    expect(marks > 0).toBe(parts.some((part) => part.marked));
  });
});

describe('the provider\'s counts in the vendor\'s usage: every input token in prompt_tokens, cache reads as cached_tokens, writes beside them', () => {
  it('the messages API (its input_tokens count neither reads nor writes)', () => {
    const usage = { input_tokens: 10, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000, output_tokens: 5, cache_creation: { ephemeral_5m_input_tokens: 60, ephemeral_1h_input_tokens: 40 } };
    expect(chatUsageOf(usage, false))
      .toEqual({ prompt_tokens: 1110, completion_tokens: 5, total_tokens: 1115, prompt_tokens_details: { cached_tokens: 1000, cache_creation_tokens: 100, cache_creation_1h_tokens: 40 } });
    // Strict vendor compliance: the vendor's members only.
    expect(chatUsageOf(usage, true)).toEqual({ prompt_tokens: 1110, completion_tokens: 5, total_tokens: 1115, prompt_tokens_details: { cached_tokens: 1000 } });
    expect(chatUsageOf({ input_tokens: 10, cache_creation_input_tokens: 100, output_tokens: 5 }, false))
      .toEqual({ prompt_tokens: 110, completion_tokens: 5, total_tokens: 115, prompt_tokens_details: { cached_tokens: 0, cache_creation_tokens: 100 } });
    expect(chatUsageOf({ input_tokens: 10, output_tokens: 5 }, false)).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
  });

  it('the messages API\'s stream: message_start\'s counts, with what message_delta counts again', () => {
    const mapper = new MessagesStreamMapper({ provider: 'anthropic', model: 'm', includeUsage: true, strict: false });
    const event = (type: string, data: object): Buffer => Buffer.from(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    let out = mapper.push(event('message_start', { message: { id: 'msg_1', model: 'm', usage: { input_tokens: 4, cache_creation_input_tokens: 20, cache_read_input_tokens: 300, output_tokens: 1, cache_creation: { ephemeral_5m_input_tokens: 5, ephemeral_1h_input_tokens: 15 } } } }));
    out += mapper.push(event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 7 } }));
    out += mapper.push(event('message_stop', {})) + mapper.end();
    const usage = out.split('\n\n').filter((frame) => frame.startsWith('data: {')).map((frame) => JSON.parse(frame.slice(6))).find((chunk) => chunk.usage)?.usage;
    expect(usage).toEqual({ prompt_tokens: 324, completion_tokens: 7, total_tokens: 331, prompt_tokens_details: { cached_tokens: 300, cache_creation_tokens: 20, cache_creation_1h_tokens: 15 } });
    expect(mapper.usage()).toEqual(usage);
  });

  it('cloud C (its inputTokens count neither reads nor writes)', () => {
    const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 1115, cacheReadInputTokens: 1000, cacheWriteInputTokens: 100, cacheDetails: [{ ttl: '1h', inputTokens: 30 }, { ttl: '5m', inputTokens: 70 }] };
    expect(converseUsage(usage, false))
      .toEqual({ prompt_tokens: 1110, completion_tokens: 5, total_tokens: 1115, prompt_tokens_details: { cached_tokens: 1000, cache_creation_tokens: 100, cache_creation_1h_tokens: 30 } });
    expect(converseUsage({ ...usage, cacheDetails: undefined }, false).prompt_tokens_details).toEqual({ cached_tokens: 1000, cache_creation_tokens: 100 });
    expect(converseUsage(usage, true)).toEqual({ prompt_tokens: 1110, completion_tokens: 5, total_tokens: 1115, prompt_tokens_details: { cached_tokens: 1000 } });
    expect(converseUsage({ inputTokens: 10, outputTokens: 5, totalTokens: 15 }, false)).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
  });

  it('cloud B (its prompt count includes the cached tokens; its thoughts are output, named as reasoning tokens)', () => {
    expect(generateContentUsage({ promptTokenCount: 1010, cachedContentTokenCount: 1000, candidatesTokenCount: 5, totalTokenCount: 1015 }))
      .toEqual({ prompt_tokens: 1010, completion_tokens: 5, total_tokens: 1015, prompt_tokens_details: { cached_tokens: 1000 } });
    expect(generateContentUsage({ promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 40, totalTokenCount: 55 }))
      .toEqual({ prompt_tokens: 10, completion_tokens: 45, total_tokens: 55, completion_tokens_details: { reasoning_tokens: 40 } });
  });
});
