// The messages API's token count for a model the vendor answers as a chat goes to the vendor's
// Responses input count (providers/vendor/input-tokens.ts): every chat the messages translation makes
// becomes a count body the vendor takes (its mock refuses what the service refuses), with the
// conversation's words, calls and results in the chat's order.
import { expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { chatOfMessages } from '../../runtime/providers/shared/messages-as-chat.ts';
import { inputTokensBody } from '../../runtime/providers/vendor/input-tokens.ts';
import { inputTokensRefusal } from '../mocks/vendor/input-tokens.ts';
import { hostileMessagesBody } from '../support/hostile-messages-body.ts';
import { GatewayError } from '../../runtime/core/errors.ts';

type Json = Record<string, any>;

const text = fc.string({ minLength: 1, maxLength: 12 });
const toolId = fc.stringMatching(/^toolu_[a-z0-9]{4}$/);
const image = fc.constant({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K' } });
const pdf = fc.constant({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' }, title: 'a.pdf' });
const assistantTurn = fc.array(fc.oneof(
  text.map((t) => ({ type: 'text', text: t })),
  fc.record({ id: toolId, name: fc.stringMatching(/^[a-z_]{1,10}$/), input: fc.dictionary(fc.stringMatching(/^[a-z]{1,4}$/), fc.string({ maxLength: 6 }), { maxKeys: 2 }) }).map((call) => ({ type: 'tool_use', ...call })),
  text.map((t) => ({ type: 'thinking', thinking: t, signature: 'c2ln' })),
), { minLength: 1, maxLength: 4 }).map((content) => ({ role: 'assistant', content }));
const userTurn = fc.oneof(
  text.map((content) => ({ role: 'user', content })),
  fc.array(fc.oneof(
    text.map((t) => ({ type: 'text', text: t })), image, pdf,
    fc.record({ tool_use_id: toolId, content: fc.oneof(text, fc.array(fc.oneof(text.map((t) => ({ type: 'text', text: t })), image), { maxLength: 2 })) }).map((result) => ({ type: 'tool_result', ...result })),
  ), { minLength: 1, maxLength: 4 }).map((content) => ({ role: 'user', content })),
);
const options = fc.record({
  system: text,
  tools: fc.array(fc.record({ name: fc.stringMatching(/^[a-z]{1,8}$/), description: text, input_schema: fc.constant({ type: 'object' }), strict: fc.boolean() }, { requiredKeys: ['name', 'input_schema'] }), { minLength: 1, maxLength: 2 }),
  tool_choice: fc.oneof(fc.constantFrom({ type: 'auto' }, { type: 'any' }, { type: 'none' }, { type: 'auto', disable_parallel_tool_use: true }), fc.constant({ type: 'tool', name: 'f' })),
  thinking: fc.integer({ min: 1024, max: 40_000 }).map((budget) => ({ type: 'enabled', budget_tokens: budget })),
  output_config: fc.constant({ format: { type: 'json_schema', schema: { type: 'object' } } }),
  max_tokens: fc.nat(),
  temperature: fc.double({ min: 0, max: 1, noNaN: true }),
  stop_sequences: fc.array(text, { maxLength: 2 }),
}, { requiredKeys: [] });

/** The words of a chat conversation in order: messages' text parts, tool calls' arguments, tool results. */
function wordsOfChat(messages: Json[]): string[] {
  return messages.flatMap((message) => {
    if (message.role === 'tool') return [`out:${message.content}`];
    const said = typeof message.content === 'string' ? [message.content] : Array.isArray(message.content) ? message.content.filter((part: Json) => part.type === 'text').map((part: Json) => part.text) : [];
    return [...said, ...(message.tool_calls ?? []).map((call: Json) => `call:${call.id}:${call.function.arguments}`)];
  });
}

/** The same of the count's input items. */
function wordsOfInput(items: Json[]): string[] {
  return items.flatMap((item) => {
    if (item.type === 'function_call_output') return [`out:${item.output}`];
    if (item.type === 'function_call') return [`call:${item.call_id}:${item.arguments}`];
    return typeof item.content === 'string' ? [item.content] : item.content.filter((part: Json) => part.type === 'input_text').map((part: Json) => part.text);
  });
}

test.prop([fc.array(fc.oneof(userTurn, assistantTurn), { minLength: 1, maxLength: 6 }), options])(
  'makes of every chat the messages translation gives a count body the vendor takes, with its words, calls and results in order',
  (turns, asked) => {
    const chat = chatOfMessages({ model: 'claude', messages: turns, ...asked }, 'max_completion_tokens');
    const body = JSON.parse(inputTokensBody(chat).toString()) as Json;
    expect(inputTokensRefusal(body)).toBeNull();
    expect(wordsOfInput(body.input)).toEqual(wordsOfChat(chat.messages as Json[]));
    // Images and documents count too: as many as the chat holds.
    const attachments = (parts: Json[], types: string[]) => parts.filter((part) => types.includes(part.type)).length;
    const chatParts = (chat.messages as Json[]).flatMap((message) => (Array.isArray(message.content) ? message.content : []));
    const inputParts = (body.input as Json[]).flatMap((item) => (Array.isArray(item.content) ? item.content : []));
    expect(attachments(inputParts, ['input_image', 'input_file'])).toBe(attachments(chatParts, ['image_url', 'file']));
    expect((body.tools ?? []).map((tool: Json) => tool.name)).toEqual((chat.tools as Json[] | undefined ?? []).map((tool) => tool.function.name));
  },
);

test.prop([hostileMessagesBody])('makes a count body the vendor takes of any chat the translation makes of any body, never a crash', (body) => {
  let chat: Json;
  try {
    chat = chatOfMessages(body, 'max_completion_tokens');
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return;
  }
  expect(inputTokensRefusal(JSON.parse(inputTokensBody(chat).toString()) as Json)).toBeNull();
});
