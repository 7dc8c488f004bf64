// A held stream is read as SSE clients read it, whatever line endings the provider chose: the texts
// the output checks judge are each choice's deltas joined, and a rewritten stream still parses into
// the same events with each rewritten choice's new text in place of the old.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { holdStream, rewrittenStream } from '../../runtime/pipeline/guardrails/held-stream.ts';
import { SseParser, type SseEvent } from '../../runtime/providers/shared/sse.ts';
import { rewriteAnswer } from '../../runtime/pipeline/guardrails/hook-text.ts';
import type { TextTransform } from '../../runtime/pipeline/guardrails/check.ts';

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

  test.prop([streams], { numRuns: 200 })('judges each choice\'s deltas joined, with any line ending', (stream) => {
    const held = holdStream(stream.endpoint, streamOf(stream));
    expect(textsOf(stream.endpoint, held.answer)).toEqual(expectedTexts(stream));
  });

  test.prop([streams, piece], { numRuns: 200 })('a rewritten stream parses into the same events, choice 0\'s new text on the first that carried any, the others as sent', (stream, replacement) => {
    const original = parse(streamOf(stream));
    const held = holdStream(stream.endpoint, streamOf(stream));
    const judged = withTexts(stream.endpoint, held.answer, new Map([[0, replacement]]));
    const rewritten = parse(rewrittenStream(stream.endpoint, held, judged));
    expect(rewritten.map((e) => e.event)).toEqual(original.map((e) => e.event));
    const expected = expectedTexts(stream);
    if (stream.pieces.length > 0) expected.set(0, replacement);
    expect(textsOf(stream.endpoint, holdStream(stream.endpoint, rewrittenStream(stream.endpoint, held, judged)).answer)).toEqual(expected);
    // Everything but choice 0's text is as the provider sent it.
    const blank = (events: SseEvent[]) => events.map((e) => (e.data === '[DONE]' ? e.data : JSON.stringify(chunk(stream.endpoint, '', otherOf(e.data, stream.endpoint)))));
    expect(blank(rewritten)).toEqual(blank(original));
  });

  test.prop([streams, fc.array(fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.constant([])), { maxLength: 3 })], { numRuns: 100 })('a judged answer whose choices are not objects (a webhook\'s) leaves the stream as it came', (stream, choices) => {
    const held = holdStream(stream.endpoint, streamOf(stream));
    expect(textsOf(stream.endpoint, holdStream(stream.endpoint, rewrittenStream(stream.endpoint, held, { choices })).answer)).toEqual(expectedTexts(stream));
  });

  test.prop([streams, piece, piece], { numRuns: 200 })('every choice a transformer rewrote goes back rewritten, so no choice of a held stream slips past', (stream, first, second) => {
    const held = holdStream(stream.endpoint, streamOf(stream));
    const judged = withTexts(stream.endpoint, held.answer, new Map([[0, first], [1, second]]));
    const expected = expectedTexts(stream);
    if (stream.pieces.length > 0) expected.set(0, first);
    if (expected.has(1)) expected.set(1, second);
    expect(textsOf(stream.endpoint, holdStream(stream.endpoint, rewrittenStream(stream.endpoint, held, judged)).answer)).toEqual(expected);
  });
});

describe('a held stream a transformer rewrote', () => {
  const MARK = 'SECRET';
  const redact: TextTransform = (text) => ({ text: text.replaceAll(MARK, '[R]'), found: text.split(MARK).length - 1 });
  const MEMBERS = ['content', 'reasoning_content', 'reasoning', 'refusal'] as const;
  const pieces = fc.array(fc.record({ index: fc.constantFrom(0, 1), member: fc.constantFrom(...MEMBERS), text: fc.constantFrom('a ', 'SEC', 'RET', MARK, ' b', ''), logprobs: fc.boolean() }), { maxLength: 8 });

  test.prop([pieces], { numRuns: 300 })('keeps no replaced value in any member of any choice (content, reasoning, refusal) nor in its log probabilities', (stream) => {
    const frames = stream.map(({ index, member, text, logprobs }) => ({
      id: 'c', model: 'm',
      choices: [{ index, delta: { [member]: text }, logprobs: logprobs ? { content: [{ token: text, logprob: -0.1, bytes: [...Buffer.from(text)], top_logprobs: [] }], refusal: null } : null, finish_reason: null }],
    }));
    const bytes = Buffer.from(`${frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join('')}data: [DONE]\n\n`);
    const held = holdStream('chat', bytes);
    const judged = rewriteAnswer('chat', held.answer, redact);
    const out = judged.found === 0 ? bytes : rewrittenStream('chat', held, judged.value);
    const joined = (events: Array<Record<string, any>>) => {
      const texts = new Map<string, string>();
      for (const e of events) for (const c of e.choices) for (const m of MEMBERS) if (typeof c.delta[m] === 'string') texts.set(`${c.index}:${m}`, (texts.get(`${c.index}:${m}`) ?? '') + c.delta[m]);
      return texts;
    };
    const outEvents = parse(out).filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data));
    const expected = new Map([...joined(frames)].map(([k, t]) => [k, t.replaceAll(MARK, '[R]')]));
    expect(joined(outEvents)).toEqual(expected);
    // A choice something was replaced in keeps no log probabilities (they spell the replaced tokens); the others keep theirs.
    const touched = new Set([...joined(frames)].filter(([, t]) => t.includes(MARK)).map(([k]) => Number(k.split(':')[0])));
    outEvents.forEach((e, at) => expect(e.choices[0].logprobs).toEqual(touched.has(e.choices[0].index) ? null : frames[at]!.choices[0]!.logprobs));
  });
});

describe('a held transcript stream', () => {
  const MARK = 'SECRET';
  const redact: TextTransform = (text) => ({ text: text.replaceAll(MARK, '[R]'), found: text.split(MARK).length - 1 });
  const pieces = fc.array(fc.constantFrom('a ', 'SEC', 'RET', MARK, ' b', ''), { maxLength: 8 });

  test.prop([pieces, fc.boolean(), fc.boolean()], { numRuns: 300 })('is judged as its whole text, and rewritten: the first piece carries the new text, the end event too, no log probabilities left', (parts, ended, logprobs) => {
    const text = parts.join('');
    const lp = (token: string) => (logprobs ? { logprobs: [{ token, logprob: -0.1, bytes: [] }] } : {});
    const usage = { type: 'tokens', input_tokens: 5, output_tokens: 3, total_tokens: 8 };
    const frames: Array<Record<string, unknown>> = [...parts.map((delta) => ({ type: 'transcript.text.delta', delta, ...lp(delta) })), ...(ended ? [{ type: 'transcript.text.done', text, ...lp(text), usage }] : [])];
    const bytes = Buffer.from(frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join(''));
    const held = holdStream('audio', bytes);
    expect(held.answer).toEqual({ text });
    const judged = rewriteAnswer('audio', held.answer, redact);
    if (judged.found === 0) return;
    const out = parse(rewrittenStream('audio', held, judged.value)).map((e) => JSON.parse(e.data) as Record<string, unknown>);
    expect(out.map((e) => e.type)).toEqual(frames.map((f) => f.type));
    expect(JSON.stringify(out).includes(MARK)).toBe(false);
    expect(out.some((e) => e.logprobs !== undefined)).toBe(false);
    const expected = text.replaceAll(MARK, '[R]');
    // The new text whole in the first piece: no piece of the old one (`SEC`, `RET`) is left in the others.
    expect(out.filter((e) => e.type === 'transcript.text.delta').map((e) => e.delta)).toEqual(parts.map((_, i) => (i === 0 ? expected : '')));
    if (ended) expect(out.at(-1)).toEqual({ type: 'transcript.text.done', text: expected, usage });
  });
});

/** Each choice's text of a held answer, by index. */
function textsOf(endpoint: Endpoint, answer: Record<string, unknown>): Map<number, string> {
  return new Map((answer.choices as Array<Record<string, unknown>>).map((c) => [c.index as number, endpoint === 'chat' ? (c.message as { content: string }).content : (c.text as string)]));
}

/** What the stream's choices say: choice 0's pieces joined, and choice 1's where it had any. */
function expectedTexts(stream: Stream): Map<number, string> {
  const texts = new Map([[0, stream.pieces.map(([own]) => own).join('')]]);
  const others = stream.pieces.map(([, other]) => other).filter((o): o is string => o !== null);
  if (others.length > 0) texts.set(1, others.join(''));
  return texts;
}

/** The held answer with the given choices' texts replaced, as a transformer leaves it. */
function withTexts(endpoint: Endpoint, answer: Record<string, unknown>, texts: Map<number, string>): Record<string, unknown> {
  const choices = (answer.choices as Array<Record<string, unknown>>).map((c) => {
    const text = texts.get(c.index as number);
    if (text === undefined) return c;
    return endpoint === 'chat' ? { ...c, message: { ...(c.message as object), content: text } } : { ...c, text };
  });
  return { ...answer, choices };
}

function otherOf(data: string, endpoint: Endpoint): string | null {
  const choices = (JSON.parse(data) as { choices: Array<Record<string, unknown>> }).choices;
  const other = choices.find((c) => c.index === 1);
  if (other === undefined) return null;
  return endpoint === 'chat' ? (other.delta as { content: string }).content : (other.text as string);
}
