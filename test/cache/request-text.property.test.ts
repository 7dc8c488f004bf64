// What the semantic cache compares and what must match exactly (docs/cache.md): two requests that
// differ only in the words of their user and assistant turns (or their prompt) share a scope; any
// other difference (an image, a tool call or result, a role, a system message, a parameter, the
// prompt's form, token ids) gives another scope, so a semantic hit is only ever an answer to the same question in other words.
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { canonicalJson } from '../../runtime/core/canonical-json.ts';
import { splitRequest } from '../../runtime/pipeline/cache/request-text.ts';

const RUNS = { numRuns: 200 };
const words = fc.array(fc.constantFrom('what', 'is', 'in', 'this', 'picture', 'the', 'capital', 'of', 'France'), { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
const image = fc.constantFrom('https://example.com/a.png', 'https://example.com/b.png', 'data:image/png;base64,AAAA');
const part = fc.oneof(words.map((text) => ({ type: 'text', text })), image.map((url) => ({ type: 'image_url', image_url: { url } })), fc.constant({ type: 'input_audio', input_audio: { data: 'UklGR', format: 'wav' } }));
const toolCall = fc.record({ id: fc.constantFrom('call_1', 'call_2'), type: fc.constant('function'), function: fc.record({ name: fc.constantFrom('lookup', 'search'), arguments: fc.constantFrom('{}', '{"q":"x"}') }) });
const message = fc.oneof(
  fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.oneof(words, fc.array(part, { minLength: 1, maxLength: 3 })) }),
  fc.record({ role: fc.constant('assistant'), content: fc.constant(null), tool_calls: fc.array(toolCall, { minLength: 1, maxLength: 2 }) }),
  fc.record({ role: fc.constant('tool'), tool_call_id: fc.constantFrom('call_1', 'call_2'), content: words }),
  fc.record({ role: fc.constant('system'), content: words }),
);
const chat = fc.record({ model: fc.constantFrom('a', 'b'), messages: fc.array(message, { minLength: 1, maxLength: 4 }), temperature: fc.constantFrom(0, 1) });

const scope = (endpoint: 'chat' | 'completions', body: unknown): string => canonicalJson(splitRequest(endpoint, body).rest);

/** The same request with the words of every user and assistant turn replaced. */
function reworded(body: { messages: Array<Record<string, unknown>> }, words: string): typeof body {
  return {
    ...body,
    messages: body.messages.map((m) => {
      if (m.role === 'system' || m.role === 'tool') return m;
      if (typeof m.content === 'string') return { ...m, content: words };
      if (Array.isArray(m.content)) return { ...m, content: m.content.map((p: { type: string }) => (p.type === 'text' ? { ...p, text: words } : p)) };
      return m;
    }),
  };
}

describe('the semantic split', () => {
  test.prop([chat, words], RUNS)('other words in the non-system messages: the same scope', (body, other) => {
    expect(scope('chat', reworded(body, other))).toBe(scope('chat', body));
  });

  test.prop([chat, fc.nat(), part, fc.constantFrom('role', 'tool_calls', 'tool_call_id', 'name')], RUNS)('another image, tool call, role or name in a message: another scope', (body, at, newPart, member) => {
    const i = at % body.messages.length;
    const original = body.messages[i] as Record<string, unknown>;
    let changed: Record<string, unknown>;
    if (member === 'role') changed = { ...original, role: original.role === 'user' ? 'assistant' : 'user' };
    else if (member === 'tool_calls') changed = { ...original, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'other', arguments: '{}' } }] };
    else if (member === 'tool_call_id') changed = { ...original, tool_call_id: 'call_9' };
    else changed = { ...original, name: 'someone' };
    const messages = body.messages.map((m, j) => (j === i ? changed : m));
    expect(scope('chat', { ...body, messages })).not.toBe(scope('chat', body));
    // A part that is not text, added to a turn: another scope; a text part: the same one, reworded.
    if (original.role !== 'system' && original.role !== 'tool' && Array.isArray(original.content)) {
      const withPart = body.messages.map((m, j) => (j === i ? { ...original, content: [...(original.content as unknown[]), newPart] } : m));
      if (newPart.type === 'text') expect(scope('chat', { ...body, messages: withPart })).toBe(scope('chat', body));
      else expect(scope('chat', { ...body, messages: withPart })).not.toBe(scope('chat', body));
    }
  });

  test.prop([chat, words], RUNS)("another tool result or system message: another scope (they are data and instructions, not phrasing)", (body, other) => {
    const i = body.messages.findIndex((m) => m.role === 'tool' || m.role === 'system');
    fc.pre(i !== -1 && body.messages[i].content !== other);
    const messages = body.messages.map((m, j) => (j === i ? { ...m, content: other } : m));
    expect(scope('chat', { ...body, messages })).not.toBe(scope('chat', body));
  });

  test('a part that is no object (the client\'s JSON: null, a number) is not text, and keeps its place in the scope', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: [null, 7, { type: 'text', text: 'hello there' }] }] };
    expect(splitRequest('chat', body)).toEqual({ text: 'hello there', rest: { model: 'm', messages: [{ role: 'user', content: [null, 7] }] } });
  });

  test('the same question about another picture is another scope', () => {
    const ask = (url: string) => ({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'what is in this picture?' }, { type: 'image_url', image_url: { url } }] }] });
    expect(splitRequest('chat', ask('https://example.com/a.png')).text).toBe('what is in this picture?');
    expect(scope('chat', ask('https://example.com/a.png'))).not.toBe(scope('chat', ask('https://example.com/b.png')));
  });

  test.prop([fc.array(words, { minLength: 1, maxLength: 3 }), words], RUNS)('completions: the words of the prompt are compared, its form (one prompt or several) must match', (prompts, other) => {
    const single = { model: 'm', prompt: prompts.join('\n') };
    const several = { model: 'm', prompt: prompts };
    expect(splitRequest('completions', single).text).toBe(splitRequest('completions', several).text);
    expect(scope('completions', { ...single, prompt: other })).toBe(scope('completions', single));
    expect(scope('completions', several.prompt.length === 1 ? several : { ...several, prompt: prompts.map(() => other) })).toBe(scope('completions', several));
    expect(scope('completions', several)).not.toBe(scope('completions', single));
  });

  test.prop([fc.array(fc.array(fc.nat(50_000), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 2 })], RUNS)('completions: token ids are no text, and must match exactly', (ids) => {
    expect(splitRequest('completions', { model: 'm', prompt: ids }).text).toBe('');
    expect(scope('completions', { model: 'm', prompt: ids })).not.toBe(scope('completions', { model: 'm', prompt: [...ids, [7]] }));
  });
});
