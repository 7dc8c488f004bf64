// The members of a chat message and of its content parts, as each translating family takes them:
// what it reads, what it knowingly drops (a participant's name, what a replayed answer carries), and
// anything else, a misspelt cache_control among them, refused naming it instead of dropped.
import { describe, expect, it } from 'vitest';
import { toMessagesRequest } from '../../runtime/providers/anthropic/request.ts';
import { toGenerateContentRequest } from '../../runtime/providers/cloudb/request.ts';
import { toConverseRequest } from '../../runtime/providers/cloudc/request.ts';
import type { ChatRequest } from '../../runtime/providers/shared/chat.ts';

const FAMILIES: Array<[string, (chat: ChatRequest) => unknown]> = [
  ['messages', (chat) => toMessagesRequest(chat, 'anthropic')],
  ['cloudb', (chat) => toGenerateContentRequest(chat, 'cloudb')],
  ['cloudc', (chat) => toConverseRequest(chat, 'cloudc')],
];
const chat = (messages: unknown[]): ChatRequest => ({ model: 'm', messages }) as unknown as ChatRequest;

describe.each(FAMILIES)('%s', (_name, translate) => {
  it('drops a participant name and what a replayed answer carries, leaving the request as without them', () => {
    const plain = chat([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }, { role: 'user', content: 'again' }]);
    const replayed = chat([
      { role: 'user', content: 'hi', name: 'alice' },
      // An answer of the gateway's (reasoning_content from thinking) or of the vendor, sent back as it came.
      { role: 'assistant', content: 'hello', refusal: null, annotations: [], audio: null, function_call: null, reasoning_content: 'thought about it' },
      { role: 'user', content: [{ type: 'text', text: 'again' }] },
    ]);
    expect(translate(replayed)).toEqual(translate(plain));
  });

  it.each([
    ['a misspelt cache_control on a part', [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_contorl: { type: 'ephemeral' } }] }], '/messages/0/content/0/cache_contorl'],
    ['an image part\'s unknown member', [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', details: 'high' } }] }], '/messages/0/content/0/image_url/details'],
    ['a message member no translation reads', [{ role: 'user', content: 'hi', cache: true }], '/messages/0/cache'],
    ['a refusal with text', [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, refusal: 'I cannot' }, { role: 'user', content: 'why' }], '/messages/1/refusal'],
    ['a deprecated function_call', [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } }], '/messages/1/function_call'],
    // Only a user message's parts are sent part by part; the others are sent as their text.
    ['an image in a system message', [{ role: 'system', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }, { role: 'user', content: 'hi' }], '/messages/0/content/1/type'],
    ['a refusal part of an assistant message', [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot' }] }, { role: 'user', content: 'why' }], '/messages/1/content/0/type'],
    ['a part of another type in a tool answer', [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c1', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }], '/messages/2/content/0/type'],
  ])('refuses %s, naming it', (_what, messages, pointer) => {
    expect(() => translate(chat(messages))).toThrowError(expect.objectContaining({ code: 'invalid_request_body', param: pointer }));
  });

  it('refuses a tool\'s or its function\'s member no translation reads, naming it', () => {
    const withTools = (tool: Record<string, unknown>): ChatRequest => ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [tool] }) as unknown as ChatRequest;
    expect(() => translate(withTools({ type: 'function', function: { name: 'f' }, cache_contorl: { type: 'ephemeral' } }))).toThrowError(expect.objectContaining({ code: 'invalid_request_body', param: '/tools/0/cache_contorl' }));
    expect(() => translate(withTools({ type: 'function', function: { name: 'f', paramters: { type: 'object' } } }))).toThrowError(expect.objectContaining({ code: 'invalid_request_body', param: '/tools/0/function/paramters' }));
  });
});
