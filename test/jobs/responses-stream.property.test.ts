// A streamed emulated response and a plain one of the same chat answer agree: whatever pieces the
// chat stream comes in (deltas of any size, tool calls' argument pieces interleaved, bytes cut
// anywhere, in the middle of a character too), the output built from the stream is the one built
// from the whole completion; and the events tell exactly that output: numbered from 0, every delta
// naming an item that was added, the deltas of each part adding up to its final text.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { ChatStreamReader } from '../../runtime/api/responses/chat-stream.ts';
import { ResponseEventFrames } from '../../runtime/api/responses/events.ts';
import { type ChatCompletion, OutputBuilder, outputFromChat } from '../../runtime/api/responses/output-builder.ts';

type Item = Record<string, any>;
type Event = Record<string, any> & { type: string; sequence_number: number };

const text = fc.option(fc.string({ unit: 'binary', maxLength: 40 }), { nil: undefined });
const call = fc.record({ id: fc.stringMatching(/^call_[a-z0-9]{1,8}$/), name: fc.stringMatching(/^[a-z_]{1,10}$/), arguments: fc.string({ unit: 'binary', maxLength: 40 }) });
const answer = fc.record({
  reasoning: text,
  content: text,
  refusal: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined, freq: 5 }),
  calls: fc.array(call, { maxLength: 3 }),
  finish: fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter'),
  usage: fc.option(fc.record({ prompt_tokens: fc.nat(10_000), completion_tokens: fc.nat(10_000) }), { nil: undefined }),
});

/** `value` cut at the given fractions (sorted, deduplicated): its pieces, in order. */
function pieces(value: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((c) => Math.floor(c * value.length)))].filter((p) => p > 0 && p < value.length).sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of points) {
    out.push(value.slice(from, p));
    from = p;
  }
  out.push(value.slice(from));
  return out;
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });

/** The ids the builder made, as positions: the two outputs are compared for what they say. */
function withoutIds(items: Item[]): Item[] {
  return items.map((item, i) => ({ ...item, id: `item_${i}` }));
}

describe('streamed and plain emulated responses', () => {
  test.prop([answer, fc.boolean(), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 12 }), fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 8 })], { numRuns: 300 })(
    'agree on the output, and the events tell it',
    (a, summarize, cuts, order, sizes) => {
      const completion: ChatCompletion = {
        model: 'm',
        choices: [{
          message: {
            content: a.content ?? null,
            ...(a.reasoning === undefined ? {} : { reasoning_content: a.reasoning }),
            ...(a.refusal === undefined ? {} : { refusal: a.refusal }),
            ...(a.calls.length === 0 ? {} : { tool_calls: a.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }),
          },
          finish_reason: a.finish,
        }],
        ...(a.usage === undefined ? {} : { usage: a.usage }),
      };
      // The same answer as a stream: each text in pieces, each call's first piece with its id and
      // name, the calls' later pieces interleaved in an arbitrary order (each call's own kept).
      const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })];
      for (const piece of a.reasoning === undefined ? [] : pieces(a.reasoning, cuts)) chunks.push(chunk({ reasoning_content: piece }));
      for (const piece of a.content === undefined ? [] : pieces(a.content, cuts)) chunks.push(chunk({ content: piece }));
      for (const piece of a.refusal === undefined ? [] : pieces(a.refusal, cuts)) chunks.push(chunk({ refusal: piece }));
      const rest = a.calls.map((c, index) => {
        const [first, ...later] = pieces(c.arguments, cuts);
        chunks.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: first } }] }));
        return later.map((piece) => ({ index, piece }));
      });
      let turn = 0;
      while (rest.some((r) => r.length > 0)) {
        const waiting = rest.filter((r) => r.length > 0);
        const next = waiting[(order[turn++ % Math.max(order.length, 1)] ?? 0) % waiting.length]!.shift()!;
        chunks.push(chunk({ tool_calls: [{ index: next.index, function: { arguments: next.piece } }] }));
      }
      chunks.push(chunk({}, a.finish));
      if (a.usage !== undefined) chunks.push({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [], usage: a.usage });
      const bytes = Buffer.from(`${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`);

      const frames = new ResponseEventFrames({ obfuscation: false });
      const builder = new OutputBuilder(summarize, frames.emit);
      const reader = new ChatStreamReader(builder, () => frames.take());
      let sent = '';
      for (let at = 0, i = 0; at < bytes.length; i++) {
        const size = sizes[i % sizes.length]!;
        sent += reader.push(bytes.subarray(at, at + size));
        at += size;
      }
      expect(reader.end()).toBeNull();
      const streamed = builder.end();
      sent += frames.take();
      const whole = outputFromChat(completion, summarize);

      expect(withoutIds(streamed.output)).toEqual(withoutIds(whole.output));
      expect({ ...streamed, output: null }).toEqual({ ...whole, output: null });

      const events = sent.split('\n\n').filter((f) => f !== '').map((f) => JSON.parse(f.slice(f.indexOf('\ndata: ') + 7)) as Event);
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
      const added = new Map<number, Item>();
      const texts = new Map<string, string>();
      for (const event of events) {
        if (event.type === 'response.output_item.added') {
          expect(added.has(event.output_index)).toBe(false);
          added.set(event.output_index, event.item);
          continue;
        }
        if (event.item_id !== undefined) expect(added.get(event.output_index)?.id).toBe(event.item_id);
        if (event.type.endsWith('.delta')) {
          const key = `${event.output_index}/${event.content_index ?? event.summary_index ?? 0}`;
          texts.set(key, (texts.get(key) ?? '') + event.delta);
        }
        if (event.type === 'response.output_item.done') expect(event.item).toEqual(streamed.output[event.output_index]);
      }
      expect(added.size).toBe(streamed.output.length);
      streamed.output.forEach((item, index) => {
        if (item.type === 'function_call') expect(texts.get(`${index}/0`) ?? '').toBe(item.arguments);
        const parts = (item.type === 'reasoning' ? item.summary : item.type === 'message' ? item.content : []) as Item[];
        parts.forEach((part, p) => expect(texts.get(`${index}/${p}`) ?? '').toBe(part.text ?? part.refusal));
      });
    },
  );
});

describe('a chat stream of any shape', () => {
  const frame = fc.oneof(
    fc.jsonValue().map((value) => `data: ${JSON.stringify(value)}\n\n`),
    fc.record({ choices: fc.array(fc.oneof(fc.constant(null), fc.record({ delta: fc.oneof(fc.constant(null), fc.dictionary(fc.constantFrom('content', 'refusal', 'reasoning_content', 'reasoning', 'tool_calls'), fc.jsonValue())), finish_reason: fc.jsonValue() }, { requiredKeys: [] })), { maxLength: 2 }), usage: fc.jsonValue(), model: fc.jsonValue() }, { requiredKeys: [] }).map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`),
    fc.record({ tool_calls: fc.array(fc.record({ index: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.jsonValue()), id: fc.jsonValue(), function: fc.oneof(fc.jsonValue(), fc.record({ name: fc.jsonValue(), arguments: fc.jsonValue() })) }, { requiredKeys: [] }), { maxLength: 3 }) }).map((delta) => `data: ${JSON.stringify({ choices: [{ delta }] })}\n\n`),
    fc.constantFrom('data: [DONE]\n\n', 'event: error\ndata: {"error":{"message":"boom"}}\n\n', ': keep-alive\n\n', 'data: {"error":null}\n\n', 'data: not json\n\n'),
    fc.string({ unit: 'binary', maxLength: 30 }),
  );

  test.prop([fc.array(frame, { maxLength: 12 }), fc.boolean(), fc.option(fc.string(), { nil: null })], { numRuns: 300 })(
    'never throws: it finishes, or fails with a code and message, and its events are numbered from 0',
    (frames, summarize, broken) => {
      const events = new ResponseEventFrames({ obfuscation: false });
      const builder = new OutputBuilder(summarize, events.emit);
      const reader = new ChatStreamReader(builder, () => events.take());
      let sent = '';
      for (const text of frames) sent += reader.push(Buffer.from(text));
      const failure = reader.end(broken);
      if (failure === null) expect(reader.done).toBe(true);
      else expect(failure).toEqual({ code: expect.any(String), message: expect.any(String) });
      const result = builder.end();
      sent += events.take();
      expect(result.output.length).toBeGreaterThan(0);
      const parsed = sent.split('\n\n').filter((f) => f !== '').map((f) => JSON.parse(f.slice(f.indexOf('\ndata: ') + 7)) as { sequence_number: number });
      expect(parsed.map((e) => e.sequence_number)).toEqual(parsed.map((_, i) => i));
    },
  );
});
