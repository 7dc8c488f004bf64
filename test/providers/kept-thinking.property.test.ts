// Signed thinking through the chat translations (providers/shared/kept-thinking.ts), the messages
// API's and converse's, and generateContent's thought signatures:
// what an answer (JSON, or its stream read by the stream mapper) hands over to be kept is its
// thinking before each tool call, and the assistant turn the translation makes of the client's
// message with those calls gets it back where the model wrote it; a message making other calls gets
// nothing.
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { keptThinkingOf, withKeptMessagesThinking as withKeptThinking } from '../../runtime/providers/anthropic/kept-thinking.ts';
import type { MessagesBlock } from '../../runtime/providers/anthropic/request.ts';
import { MessagesStreamMapper } from '../../runtime/providers/anthropic/stream.ts';
import type { KeptThinking } from '../../runtime/providers/types.ts';
import { keptConverseThinkingOf, withKeptConverseThinking } from '../../runtime/providers/cloudc/kept-thinking.ts';
import type { ConverseBlock } from '../../runtime/providers/cloudc/request.ts';
import { ConverseStreamMapper } from '../../runtime/providers/cloudc/stream.ts';
import { eventMessage } from '../mocks/cloudc/event-stream.ts';
import { withKeptSignatures } from '../../runtime/providers/cloudb/kept-thinking.ts';
import type { GenerateContentPart } from '../../runtime/providers/cloudb/request.ts';
import { fromGenerateContentResponse } from '../../runtime/providers/cloudb/response.ts';
import { GenerateContentStreamMapper } from '../../runtime/providers/cloudb/stream.ts';

type Block = Record<string, any>;

const thinking: fc.Arbitrary<Block> = fc.oneof(
  fc.record({ type: fc.constant('thinking'), thinking: fc.string({ maxLength: 20 }), signature: fc.string({ minLength: 1, maxLength: 12 }) }),
  fc.record({ type: fc.constant('redacted_thinking'), data: fc.string({ minLength: 1, maxLength: 12 }) }),
);

/** An answer's content as the model writes it: thinking, maybe text, then each tool call after its own thinking. */
const answers = fc.record({
  first: fc.array(thinking, { maxLength: 3 }),
  text: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: null }),
  calls: fc.array(fc.record({ thinking: fc.array(thinking, { maxLength: 2 }), name: fc.constantFrom('lookup', 'search') }), { minLength: 1, maxLength: 3 }),
}).map(({ first, text, calls }) => {
  const content: Block[] = [...first, ...(text === null ? [] : [{ type: 'text', text }])];
  calls.forEach((call, i) => content.push(...(i === 0 ? [] : call.thinking), { type: 'tool_use', id: `toolu_${i}`, name: call.name, input: { i } }));
  return content;
});

/** The assistant turn the translation makes of the chat message for that answer: its text, then its tool calls. */
function translatedTurn(content: Block[]): MessagesBlock[] {
  return content.filter((b) => b.type === 'text' || b.type === 'tool_use') as MessagesBlock[];
}

/** The stream the messages API sends for `content`, as SSE text. */
function streamOf(content: Block[]): string {
  const events: Block[] = [{ type: 'message_start', message: { id: 'msg', model: 'm', usage: { input_tokens: 1, output_tokens: 1 } } }];
  content.forEach((block, index) => {
    if (block.type === 'thinking') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '' } });
      for (const piece of block.thinking.match(/[\s\S]{1,5}/g) ?? []) events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    } else if (block.type === 'tool_use') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    } else if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: block });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } }, { type: 'message_stop' });
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

describe('signed thinking kept through the chat translation', () => {
  test.prop([answers], { numRuns: 200 })('put back into the client\'s assistant turn, it is the answer\'s content as the model wrote it', (content) => {
    const kept = keptThinkingOf(content);
    const hasThinking = content.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking');
    if (!hasThinking) {
      expect(kept).toBeNull();
      return;
    }
    expect(kept!.toolCallIds).toEqual(content.filter((b) => b.type === 'tool_use').map((b) => b.id));
    const byFirstCall = new Map([[kept!.toolCallIds[0]!, kept!]]);
    expect(withKeptThinking(translatedTurn(content), byFirstCall)).toEqual(content);
    // Other calls than the answer made: nothing put back.
    const other = translatedTurn(content).map((b) => (b.type === 'tool_use' ? { ...b, id: `${b.id}x` } : b));
    expect(withKeptThinking(other, byFirstCall)).toEqual(other);
    expect(withKeptThinking(translatedTurn(content).slice(0, -1), byFirstCall)).toEqual(translatedTurn(content).slice(0, -1));
  });

  test.prop([answers, fc.integer({ min: 1, max: 64 })], { numRuns: 100 })('a stream hands over what its JSON answer would, however its bytes are cut', (content, cut) => {
    let heard: KeptThinking | null = null;
    const mapper = new MessagesStreamMapper({ provider: 'anthropic', model: 'm', includeUsage: false, strict: false, keepThinking: (kept) => (heard = kept) });
    const bytes = Buffer.from(streamOf(content));
    for (let i = 0; i < bytes.length; i += cut) mapper.push(bytes.subarray(i, i + cut));
    mapper.end();
    expect(heard).toEqual(keptThinkingOf(content));
  });
});

const reasoning: fc.Arbitrary<Block> = fc.oneof(
  fc.record({ text: fc.string({ maxLength: 20 }), signature: fc.string({ minLength: 1, maxLength: 12 }) }).map((r) => ({ reasoningContent: { reasoningText: r } })),
  fc.string({ minLength: 1, maxLength: 12 }).map((data) => ({ reasoningContent: { redactedContent: data } })),
);

/** A converse answer's content as a Claude model writes it: reasoning, maybe text, then each tool call after its own reasoning. */
const converseAnswers = fc.record({
  first: fc.array(reasoning, { maxLength: 3 }),
  text: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: null }),
  calls: fc.array(fc.array(reasoning, { maxLength: 2 }), { minLength: 1, maxLength: 3 }),
}).map(({ first, text, calls }) => {
  const content: Block[] = [...first, ...(text === null ? [] : [{ text }])];
  calls.forEach((before, i) => content.push(...(i === 0 ? [] : before), { toolUse: { toolUseId: `tooluse_${i}`, name: 'lookup', input: { i } } }));
  return content;
});

/** The event stream converse-stream sends for `content`. */
function converseStreamOf(content: Block[]): Buffer {
  const events: Buffer[] = [eventMessage('messageStart', { role: 'assistant' })];
  content.forEach((block, contentBlockIndex) => {
    if (block.toolUse !== undefined) {
      events.push(eventMessage('contentBlockStart', { contentBlockIndex, start: { toolUse: { toolUseId: block.toolUse.toolUseId, name: block.toolUse.name } } }));
      events.push(eventMessage('contentBlockDelta', { contentBlockIndex, delta: { toolUse: { input: JSON.stringify(block.toolUse.input) } } }));
    } else if (block.reasoningContent?.reasoningText !== undefined) {
      const { text, signature } = block.reasoningContent.reasoningText;
      for (const piece of text.match(/[\s\S]{1,5}/g) ?? []) events.push(eventMessage('contentBlockDelta', { contentBlockIndex, delta: { reasoningContent: { text: piece } } }));
      events.push(eventMessage('contentBlockDelta', { contentBlockIndex, delta: { reasoningContent: { signature } } }));
    } else if (block.reasoningContent !== undefined) {
      events.push(eventMessage('contentBlockDelta', { contentBlockIndex, delta: { reasoningContent: { redactedContent: block.reasoningContent.redactedContent } } }));
    } else {
      events.push(eventMessage('contentBlockDelta', { contentBlockIndex, delta: { text: block.text } }));
    }
    events.push(eventMessage('contentBlockStop', { contentBlockIndex }));
  });
  events.push(eventMessage('messageStop', { stopReason: 'tool_use' }), eventMessage('metadata', { usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } }));
  return Buffer.concat(events);
}

describe('converse\'s signed reasoning kept through the chat translation', () => {
  test.prop([converseAnswers], { numRuns: 200 })('put back into the client\'s assistant turn, it is the answer\'s content as the model wrote it', (content) => {
    const kept = keptConverseThinkingOf(content);
    if (!content.some((b) => b.reasoningContent !== undefined)) {
      expect(kept).toBeNull();
      return;
    }
    const byFirstCall = new Map([[kept!.toolCallIds[0]!, kept!]]);
    const translated = content.filter((b) => b.text !== undefined || b.toolUse !== undefined) as ConverseBlock[];
    expect(withKeptConverseThinking(translated, byFirstCall)).toEqual(content);
  });

  test.prop([converseAnswers, fc.integer({ min: 1, max: 64 })], { numRuns: 100 })('a stream hands over what its JSON answer would, however its bytes are cut', (content, cut) => {
    let heard: KeptThinking | null = null;
    const mapper = new ConverseStreamMapper({ provider: 'cloudc', model: 'm', includeUsage: false, strict: false, keepThinking: (kept) => (heard = kept) });
    const bytes = converseStreamOf(content);
    for (let i = 0; i < bytes.length; i += cut) mapper.push(bytes.subarray(i, i + cut));
    mapper.end();
    expect(heard).toEqual(keptConverseThinkingOf(content));
  });
});

/** A Gemini answer's parts: some text, then function calls, the first (or each) with a thought signature. */
const geminiAnswers = fc.record({
  text: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: null }),
  calls: fc.array(fc.record({ name: fc.constantFrom('lookup', 'search'), signature: fc.option(fc.string({ minLength: 1, maxLength: 12 }), { nil: null }) }), { minLength: 1, maxLength: 3 }),
}).map(({ text, calls }) => [
  ...(text === null ? [] : [{ text }]),
  ...calls.map((call, i) => ({ functionCall: { name: call.name, args: { i } }, ...(call.signature === null ? {} : { thoughtSignature: call.signature }) })),
] as Block[]);

describe('generateContent\'s thought signatures kept through the chat translation', () => {
  test.prop([geminiAnswers, fc.boolean()], { numRuns: 200 })('each call\'s signature, heard with the id its tool call got, goes back on that call\'s part (JSON or streamed)', (parts, stream) => {
    const heard: KeptThinking[] = [];
    let ids: string[];
    if (!stream) {
      const answer = fromGenerateContentResponse({ candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }] } as never, 'gemini-3-pro-preview', false, (kept) => heard.push(kept));
      ids = (answer.choices[0]!.message.tool_calls ?? []).map((call) => call.id);
    } else {
      const mapper = new GenerateContentStreamMapper({ provider: 'cloudb', model: 'm', includeUsage: false, strict: false, keepThinking: (kept) => heard.push(kept) });
      const events = parts.map((part, i) => `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [part] }, index: 0, ...(i === parts.length - 1 ? { finishReason: 'STOP' } : {}) }] })}\r\n\r\n`).join('');
      const out = mapper.push(Buffer.from(events)) + mapper.end();
      ids = [...out.matchAll(/"id":"(call_[^"]+)"/g)].map((m) => m[1]!);
    }
    const signed = parts.some((p) => p.thoughtSignature !== undefined);
    expect(heard.length).toBe(signed ? 1 : 0);
    if (!signed) return;
    expect(heard[0]!.toolCallIds).toEqual(ids);
    const translated = parts.map((p) => (p.functionCall === undefined ? p : { functionCall: p.functionCall })) as GenerateContentPart[];
    expect(withKeptSignatures(translated, ids, new Map([[ids[0]!, heard[0]!]]))).toEqual(parts);
    expect(withKeptSignatures(translated, ids.map((id) => `${id}x`), new Map([[ids[0]!, heard[0]!]]))).toEqual(translated);
  });
});
