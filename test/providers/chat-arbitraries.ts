// Generated chat-completion requests shaped like real conversations: optional system prompts,
// user turns (text or text and image parts), assistant turns that answer or call tools, and one
// tool message per call, in order.
import fc from 'fast-check';
import type { ChatMessage, ChatRequest } from '../../runtime/providers/shared/chat.ts';

const word = fc.stringMatching(/^[a-zA-Z0-9]{1,8}$/);
export const text = fc.array(word, { minLength: 1, maxLength: 5 }).map((w) => w.join(' '));
const name = fc.stringMatching(/^[a-z][a-z_]{0,10}$/);
const args = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean()), { maxKeys: 3 });
const png = fc.uint8Array({ minLength: 1, maxLength: 12 }).map((b) => `data:image/png;base64,${Buffer.from(b).toString('base64')}`);

const userMessage: fc.Arbitrary<ChatMessage> = fc.oneof(
  text.map((t) => ({ role: 'user' as const, content: t })),
  fc.tuple(text, fc.option(png, { nil: undefined })).map(([t, image]) => ({
    role: 'user' as const,
    content: [{ type: 'text', text: t }, ...(image === undefined ? [] : [{ type: 'image_url', image_url: { url: image } }])],
  })),
);

let callCounter = 0;
/** An assistant turn that calls tools, and the tool messages answering it. */
const toolRound: fc.Arbitrary<ChatMessage[]> = fc.tuple(fc.option(text, { nil: undefined }), fc.array(fc.tuple(name, args, text), { minLength: 1, maxLength: 3 })).map(([said, calls]) => {
  const withIds = calls.map(([n, a, answer]) => ({ id: `call_${++callCounter}`, name: n, args: a, answer }));
  return [
    { role: 'assistant' as const, content: said ?? null, tool_calls: withIds.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.args) } })) },
    ...withIds.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: c.answer })),
  ];
});

const round: fc.Arbitrary<ChatMessage[]> = fc.tuple(userMessage, fc.oneof(text.map((t) => [{ role: 'assistant' as const, content: t }]), toolRound)).map(([user, reply]) => [user, ...reply]);

export const chatRequestArb: fc.Arbitrary<ChatRequest> = fc.record({
  system: fc.array(text, { maxLength: 2 }),
  rounds: fc.array(round, { maxLength: 3 }),
  last: userMessage,
  max_tokens: fc.option(fc.integer({ min: 1, max: 4000 }), { nil: undefined }),
  temperature: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  top_p: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  stop: fc.option(fc.oneof(word, fc.array(word, { minLength: 1, maxLength: 3 })), { nil: undefined }),
  tools: fc.option(fc.array(name, { minLength: 1, maxLength: 3 }), { nil: undefined }),
}).map((r) => {
  const request: ChatRequest = {
    model: 'model-x',
    messages: [...r.system.map((t) => ({ role: 'system' as const, content: t })), ...r.rounds.flat(), r.last],
  };
  if (r.max_tokens !== undefined) request.max_tokens = r.max_tokens;
  if (r.temperature !== undefined) request.temperature = r.temperature;
  if (r.top_p !== undefined) request.top_p = r.top_p;
  if (r.stop !== undefined) request.stop = r.stop;
  const toolNames = new Set([...(r.tools ?? []), ...r.rounds.flat().flatMap((m) => m.tool_calls?.map((c) => c.function.name) ?? [])]);
  if (toolNames.size > 0) request.tools = [...toolNames].map((n) => ({ type: 'function', function: { name: n, parameters: { type: 'object', properties: {} } } }));
  return request;
});

/** The meaning of a conversation, independent of any wire format. */
export type TranscriptItem =
  | { kind: 'user'; text: string }
  | { kind: 'image'; mediaType: string; data: string }
  | { kind: 'assistant'; text: string }
  | { kind: 'call'; id: string; name: string; args: unknown }
  | { kind: 'result'; id: string; text: string };

export interface Transcript {
  system: string[];
  items: TranscriptItem[];
}

export function chatTranscript(request: ChatRequest): Transcript {
  const system: string[] = [];
  const items: TranscriptItem[] = [];
  for (const m of request.messages) {
    const content = m.content;
    if (m.role === 'system') system.push(content as string);
    else if (m.role === 'user') {
      if (typeof content === 'string') items.push({ kind: 'user', text: content });
      else for (const part of content ?? []) {
        if (part.type === 'text') items.push({ kind: 'user', text: String(part.text) });
        else {
          const [, mediaType, data] = /^data:([^;]+);base64,(.*)$/.exec((part as { image_url: { url: string } }).image_url.url)!;
          items.push({ kind: 'image', mediaType, data });
        }
      }
    } else if (m.role === 'assistant') {
      if (typeof content === 'string' && content !== '') items.push({ kind: 'assistant', text: content });
      for (const call of m.tool_calls ?? []) items.push({ kind: 'call', id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments) });
    } else if (m.role === 'tool') items.push({ kind: 'result', id: m.tool_call_id!, text: content as string });
  }
  return { system, items };
}
