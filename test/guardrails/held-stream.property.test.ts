// A held stream is read as SSE clients read it, whatever line endings the provider chose: the text the
// output checks judge is the first choice's deltas joined, and a rewritten stream still parses into
// the same events with the new text in place of the old.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { holdStream, rewrittenStream } from '../../runtime/pipeline/guardrails/held-stream.ts';
import { SseParser, type SseEvent } from '../../runtime/providers/shared/sse.ts';

type Endpoint = 'chat' | 'completions';

const piece = fc.string({ maxLength: 12 });

/** A chunk event of the endpoint's shape carrying `text` for choice 0 (and another choice's text, never judged). */
function chunk(endpoint: Endpoint, text: string, other: string | null): Record<string, unknown> {
  const choice = (index: number, t: string) => (endpoint === 'chat' ? { index, delta: { content: t }, finish_reason: null } : { index, text: t, finish_reason: null });
  return { id: 'cmpl-1', model: 'm', choices: other === null ? [choice(0, text)] : [choice(1, other), choice(0, text)] };
}

/** The stream's events as the SSE standard reads them. */
function parse(bytes: Buffer): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(bytes), ...parser.end()];
}

const streams: fc.Arbitrary<Stream> = fc.record({
  endpoint: fc.constantFrom<Endpoint>('chat', 'completions'),
  pieces: fc.array(fc.tuple(piece, fc.option(piece, { nil: null })), { maxLength: 6 }),
  eol: fc.constantFrom('\n', '\r\n', '\r'),
  comment: fc.boolean(),
  typed: fc.boolean(),
});

interface Stream {
  endpoint: Endpoint;
  pieces: Array<[string, string | null]>;
  eol: string;
  comment: boolean;
  typed: boolean;
}

function streamOf({ endpoint, pieces, eol, comment, typed }: Stream): Buffer {
  let text = comment ? `: keep-alive${eol}${eol}` : '';
  for (const [own, other] of pieces) text += `${typed ? `event: chunk${eol}` : ''}data: ${JSON.stringify(chunk(endpoint, own, other))}${eol}${eol}`;
  text += `data: [DONE]${eol}${eol}`;
  return Buffer.from(text);
}

describe('holdStream', () => {
  test.prop([fc.array(fc.tuple(piece, fc.option(piece, { nil: null })), { maxLength: 6 })], { numRuns: 100 })('holds a spoken answer\'s transcript pieces of the first choice as its audio transcript', (pieces) => {
    const frame = (text: string, other: string | null) => ({ id: 'c', model: 'm', choices: [...(other === null ? [] : [{ index: 1, delta: { audio: { transcript: other } } }]), { index: 0, delta: { audio: { transcript: text, data: 'AA==' } } }] });
    const bytes = Buffer.from(`${pieces.map(([own, other]) => `data: ${JSON.stringify(frame(own, other))}\n\n`).join('')}data: [DONE]\n\n`);
    const held = holdStream('chat', bytes);
    const message = (held.answer.choices as Array<{ message: { content: string; audio?: { transcript: string } } }>)[0]!.message;
    expect(message.content).toBe('');
    expect(message.audio?.transcript).toBe(pieces.length === 0 ? undefined : pieces.map(([own]) => own).join(''));
  });

  test.prop([streams], { numRuns: 200 })('judges the first choice\'s deltas joined, with any line ending', (stream) => {
    const held = holdStream(stream.endpoint, streamOf(stream));
    const expected = stream.pieces.map(([own]) => own).join('');
    expect(held.text).toBe(expected);
    const choice = (held.answer.choices as Array<Record<string, unknown>>)[0]!;
    expect(stream.endpoint === 'chat' ? (choice.message as { content: string }).content : choice.text).toBe(expected);
  });

  test.prop([streams, piece], { numRuns: 200 })('a rewritten stream parses into the same events, the new text on the first that carried any', (stream, replacement) => {
    const original = parse(streamOf(stream));
    const held = holdStream(stream.endpoint, streamOf(stream));
    const rewritten = parse(rewrittenStream(stream.endpoint, held, replacement));
    expect(rewritten.map((e) => e.event)).toEqual(original.map((e) => e.event));
    expect(holdStream(stream.endpoint, rewrittenStream(stream.endpoint, held, replacement)).text).toBe(stream.pieces.length === 0 ? '' : replacement);
    // Everything but choice 0's text is as the provider sent it.
    const blank = (events: SseEvent[]) => events.map((e) => (e.data === '[DONE]' ? e.data : JSON.stringify(chunk(stream.endpoint, '', otherOf(e.data, stream.endpoint)))));
    expect(blank(rewritten)).toEqual(blank(original));
  });
});

function otherOf(data: string, endpoint: Endpoint): string | null {
  const choices = (JSON.parse(data) as { choices: Array<Record<string, unknown>> }).choices;
  const other = choices.find((c) => c.index === 1);
  if (other === undefined) return null;
  return endpoint === 'chat' ? (other.delta as { content: string }).content : (other.text as string);
}
