// A stored conversation's input items (runtime/api/responses/input-items.ts): every message but the
// answer becomes items in order (an assistant turn its text and then its tool calls), IDs unique and
// the same on every call, and Responses input mapped to chat messages comes back as the items it was.
import { fc, test } from '@fast-check/vitest';
import { expect, test as plain } from 'vitest';
import { inputToMessages, type ChatMessage } from '../../runtime/api/responses/conversation.ts';
import { inputItemsOf } from '../../runtime/api/responses/input-items.ts';

const text = fc.string({ maxLength: 20 });
const message: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.record({ role: fc.constantFrom('user', 'system'), content: text }),
  fc.record({ role: fc.constant('assistant'), content: text }),
  fc.record({ role: fc.constant('assistant'), content: fc.constant(null), tool_calls: fc.array(fc.record({ id: text, type: fc.constant('function'), function: fc.record({ name: text, arguments: text }) }), { minLength: 1, maxLength: 3 }) }),
  fc.record({ role: fc.constant('tool'), tool_call_id: text, content: text }),
);

test.prop([fc.array(message, { minLength: 1, maxLength: 12 })], { numRuns: 200 })('one item per message part, in order, the answer left out, IDs unique and stable', (conversation) => {
  const items = inputItemsOf('resp_gwabc', conversation);
  const expected = conversation.slice(0, -1).flatMap((m) => {
    if (m.role === 'tool') return ['function_call_output'];
    if (m.role === 'assistant') return [...(typeof m.content === 'string' && m.content !== '' ? ['message'] : []), ...((m.tool_calls as unknown[] | undefined) ?? []).map(() => 'function_call')];
    return ['message'];
  });
  expect(items.map((item) => item.type)).toEqual(expected);
  expect(new Set(items.map((item) => item.id)).size).toBe(items.length);
  expect(inputItemsOf('resp_gwabc', conversation)).toEqual(items);
});

test.prop([fc.array(fc.record({ role: fc.constantFrom('user', 'system', 'assistant'), content: fc.string({ minLength: 1, maxLength: 20 }) }), { minLength: 1, maxLength: 8 })], { numRuns: 200 })(
  'Responses message input, mapped to chat and stored, lists back as the same roles and texts',
  (input) => {
    const messages = inputToMessages(input.map((m) => ({ type: 'message', ...m })));
    const items = inputItemsOf('resp_gwx', [...messages, { role: 'assistant', content: 'the answer' }]);
    expect(items.map((item) => [item.role, (item.content as Array<{ text: string }>)[0]!.text])).toEqual(input.map((m) => [m.role, m.content]));
  },
);

plain('a stored message\'s image and file parts list back as the input parts they came from', () => {
  const pdf = 'data:application/pdf;base64,JVBERi0xLjQ=';
  const input = [{ role: 'user', content: [{ type: 'input_text', text: 'read' }, { type: 'input_image', image_url: 'https://x/a.png', detail: 'low' }, { type: 'input_file', file_data: pdf, filename: 'a.pdf' }, { type: 'input_file', file_id: 'file-1' }] }];
  const items = inputItemsOf('resp_gwx', [...inputToMessages(input), { role: 'assistant', content: 'ok' }]);
  expect(items.map((item) => item.content)).toEqual([input[0]!.content]);
});
