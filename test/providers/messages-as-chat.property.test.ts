// The messages API's create call as a chat completion (messages-as-chat.ts) and the chat's answer as
// the messages API's (chat-as-messages.ts): the conversation's words and tool calls go over in order,
// Claude's thinking of earlier turns is left out, and a streamed answer, however its bytes are cut,
// adds up to the message the same answer makes unstreamed.
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { chatOfMessages } from '../../runtime/providers/shared/messages-as-chat.ts';
import { ChatAsMessagesStream, messageOfChat } from '../../runtime/providers/shared/chat-as-messages.ts';
import { cutAt } from '../support/cut.ts';
import { thrownBy } from './adapter-calls.ts';

type Json = Record<string, any>;

const text = fc.string({ minLength: 1, maxLength: 20 });
const toolId = fc.stringMatching(/^toolu_[a-z0-9]{4}$/);
const input = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean()), { maxKeys: 3 });

/** A turn of each role, in the blocks a messages client sends: words, tool calls and their results, and Claude's thinking. */
const assistantTurn = fc.array(fc.oneof(
  text.map((t) => ({ type: 'text', text: t })),
  fc.record({ id: toolId, name: fc.stringMatching(/^[a-z_]{1,10}$/), input }).map((call) => ({ type: 'tool_use', ...call })),
  text.map((t) => ({ type: 'thinking', thinking: t, signature: 'c2ln' })),
), { minLength: 1, maxLength: 4 }).map((content) => ({ role: 'assistant', content }));
const userTurn = fc.oneof(
  text.map((content) => ({ role: 'user', content })),
  fc.array(fc.oneof(text.map((t) => ({ type: 'text', text: t })), fc.record({ tool_use_id: toolId, content: text }).map((result) => ({ type: 'tool_result', ...result }))), { minLength: 1, maxLength: 3 }).map((content) => ({ role: 'user', content })),
);

/**
 * The words of a messages conversation, in the order the chat has them: text and tool results, not
 * thinking; a user turn's tool results before its text (the chat wants a call's result right after it).
 */
function wordsOfMessages(turns: Json[]): string[] {
  return turns.flatMap((turn) => {
    if (typeof turn.content === 'string') return [turn.content];
    const blocks = turn.content as Json[];
    const results = blocks.filter((block) => block.type === 'tool_result').map((block) => `result:${block.content}`);
    return [...results, ...blocks.filter((block) => block.type === 'text').map((block) => block.text)];
  });
}

/** The same of a chat conversation: its user and assistant words, its tool messages. */
function wordsOfChat(messages: Json[]): string[] {
  return messages.flatMap((message) => (message.role === 'tool' ? [`result:${message.content}`] : typeof message.content === 'string' ? [message.content] : Array.isArray(message.content) ? message.content.map((part: Json) => part.text) : []));
}

describe('a messages create call as a chat completion', () => {
  test.prop([fc.array(fc.oneof(userTurn, assistantTurn), { minLength: 1, maxLength: 6 }), fc.option(text, { nil: undefined })])(
    'keeps every word and tool call, in order (a turn\'s tool results first), and leaves out Claude\'s thinking',
    (turns, system) => {
      const chat = chatOfMessages({ model: 'm', max_tokens: 10, messages: turns, ...(system === undefined ? {} : { system }) }, 'max_tokens');
      const messages = chat.messages as Json[];
      if (system !== undefined) expect(messages[0]).toEqual({ role: 'system', content: system });
      const conversation = system === undefined ? messages : messages.slice(1);
      // A turn's words joined into one message: compare the words as one text, in order.
      expect(wordsOfChat(conversation).join('')).toBe(wordsOfMessages(turns).join(''));
      const calls = turns.flatMap((turn) => (Array.isArray(turn.content) ? turn.content.filter((block: Json) => block.type === 'tool_use') : []));
      const chatCalls = conversation.flatMap((message) => message.tool_calls ?? []);
      expect(chatCalls).toEqual(calls.map((call: Json) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.input) } })));
      expect(JSON.stringify(chat)).not.toContain('c2ln');
    },
  );

  test.prop([fc.stringMatching(/^[a-z_]{1,12}$/).filter((member) => !['model', 'messages', 'system', 'max_tokens', 'stop_sequences', 'stream', 'temperature', 'top_p', 'tools', 'tool_choice', 'metadata', 'thinking', 'service_tier'].includes(member))])(
    'refuses any other member, naming it',
    (member) => {
      const thrown = thrownBy(() => chatOfMessages({ model: 'm', messages: [], [member]: 1 }, 'max_tokens'));
      expect(thrown?.code).toBe('unsupported_parameter');
      expect(thrown?.param).toBe(`/${member}`);
    },
  );
});

/** A chat completion: some text and tool calls, a finish reason, the counts. */
const completion = fc.record({
  text: fc.option(fc.string({ minLength: 1, maxLength: 40 }), { nil: undefined }),
  calls: fc.array(fc.record({ id: fc.stringMatching(/^call_[a-z0-9]{3}$/), name: fc.stringMatching(/^[a-z_]{1,8}$/), input }), { maxLength: 2 }),
  finish: fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter'),
  usage: fc.record({ prompt_tokens: fc.nat(1000), completion_tokens: fc.nat(1000) }),
});

/** The completion's stream: its text and each call's arguments in pieces, then the finish, the usage chunk and [DONE]. */
type Answer = typeof completion extends fc.Arbitrary<infer T> ? T : never;

function chunksOf(answer: Answer, pieces: number[]): string {
  const cut = (s: string): string[] => {
    const at = [...new Set(pieces.map((p) => p % (s.length + 1)))].sort((a, b) => a - b);
    return cutAt(Buffer.from(s), at).map((b) => b.toString());
  };
  const chunk = (delta: Json, finish: string | null = null) => ({ id: 'chatcmpl-x', object: 'chat.completion.chunk', model: 'gpt-x', choices: [{ index: 0, delta, finish_reason: finish }] });
  const events: Json[] = [chunk({ role: 'assistant', content: '' })];
  if (answer.text !== undefined) for (const piece of cut(answer.text)) events.push(chunk({ content: piece }));
  answer.calls.forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of cut(JSON.stringify(call.input))) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, answer.finish));
  events.push({ id: 'chatcmpl-x', object: 'chat.completion.chunk', model: 'gpt-x', choices: [], usage: answer.usage });
  return `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
}

/** A message put together from the messages API's events, as its SDKs do. */
function accumulated(sse: string): Json {
  let message: Json = {};
  const partial = new Map<number, string>();
  for (const frame of sse.split('\n\n').filter((f) => f !== '')) {
    const event = JSON.parse(frame.split('\n')[1]!.slice('data: '.length)) as Json;
    if (event.type === 'message_start') message = { ...event.message, content: [] };
    else if (event.type === 'content_block_start') message.content[event.index] = { ...event.content_block };
    else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') message.content[event.index].text += event.delta.text;
    else if (event.type === 'content_block_delta') partial.set(event.index, (partial.get(event.index) ?? '') + event.delta.partial_json);
    else if (event.type === 'content_block_stop' && partial.has(event.index)) message.content[event.index].input = JSON.parse(partial.get(event.index)!);
    else if (event.type === 'message_delta') Object.assign(message, event.delta, { usage: { ...message.usage, ...event.usage } });
    else if (event.type === 'error') throw new Error(JSON.stringify(event));
  }
  return message;
}

describe('a chat answer as the messages API\'s', () => {
  test.prop([completion, fc.array(fc.nat(), { maxLength: 4 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 })])(
    'streamed and cut anywhere, adds up to the message the same answer makes unstreamed',
    (answer, pieces, cuts) => {
      const whole = messageOfChat({
        id: 'chatcmpl-x', model: 'gpt-x', usage: answer.usage,
        choices: [{ index: 0, finish_reason: answer.finish, message: { role: 'assistant', content: answer.text ?? null, ...(answer.calls.length === 0 ? {} : { tool_calls: answer.calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.input) } })) }) } }],
      }, 'p') as Json;
      const wire = Buffer.from(chunksOf(answer, pieces));
      const mapper = new ChatAsMessagesStream();
      const sse = cutAt(wire, cuts.map((f) => Math.floor(f * wire.length))).map((chunk) => mapper.push(chunk)).join('') + mapper.end();
      const streamed = accumulated(sse);
      expect(streamed.content).toEqual(whole.content);
      expect(streamed.stop_reason).toBe(whole.stop_reason);
      expect(streamed.usage).toEqual({ output_tokens: whole.usage.output_tokens, ...whole.usage });
      expect(streamed.model).toBe('gpt-x');
    },
  );

  test.prop([fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 })])('ends a stream that stops before [DONE] with the messages API\'s error event', (texts) => {
    const mapper = new ChatAsMessagesStream();
    const body = texts.map((t) => `data: ${JSON.stringify({ id: 'c', model: 'm', choices: [{ index: 0, delta: { content: t } }] })}\n\n`).join('');
    const out = mapper.push(Buffer.from(body)) + mapper.end();
    expect(out.trimEnd().split('\n\n').at(-1)).toMatch(/^event: error\ndata: \{"type":"error","error":\{"type":"api_error"/);
  });
});
