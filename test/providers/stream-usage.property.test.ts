// Asking a vendor-shaped provider for a stream's usage chunk on the client's behalf
// (runtime/providers/shared/stream-usage.ts): the body changes only for a stream that did not ask,
// and then only by the option; the stream the client gets is the provider's without the usage chunk
// and without the null usage members, however the provider's bytes are split, and the chunk's usage
// is what is reported.
import { describe, expect, it } from 'vitest';
import { test } from '@fast-check/vitest';
import fc from 'fast-check';
import { bodyAskingStreamUsage, UsageChunkRemover } from '../../runtime/providers/shared/stream-usage.ts';
import { SseParser } from '../../runtime/providers/shared/sse.ts';
import { cutAt } from '../support/cut.ts';

const member = fc.string({ maxLength: 8 }).filter((k) => !['stream', 'stream_options', '__proto__'].includes(k));
const otherMembers = fc.dictionary(member, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
const streamValue = fc.oneof(fc.constant(undefined), fc.boolean(), fc.constant(null), fc.constant('true'));
const optionsValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.record({ include_usage: fc.option(fc.boolean(), { nil: undefined }), include_obfuscation: fc.option(fc.boolean(), { nil: undefined }) }, { requiredKeys: [] }),
  fc.constant('yes'),
);

/** A body as a client might write it: members in any order, spaced or not. */
const bodyArb = fc.record({ others: otherMembers, stream: streamValue, options: optionsValue, spaced: fc.boolean(), streamFirst: fc.boolean() }).map(({ others, stream, options, spaced, streamFirst }) => {
  const own: Record<string, unknown> = {};
  if (stream !== undefined) own.stream = stream;
  if (options !== undefined) own.stream_options = options;
  const value = streamFirst ? { ...own, ...others } : { ...others, ...own };
  return { value, text: spaced ? JSON.stringify(value, null, 1) : JSON.stringify(value) };
});

describe('the body asking for the usage chunk', () => {
  test.prop([bodyArb])('changes only a stream that did not ask, and only by include_usage', ({ value, text }) => {
    const asked = bodyAskingStreamUsage(Buffer.from(text));
    const options = value.stream_options as unknown;
    const optionsObject = options === null || (typeof options === 'object' && !Array.isArray(options));
    const wants = value.stream === true && (options === undefined || (optionsObject && (options as { include_usage?: unknown } | null)?.include_usage !== true));
    if (!wants) {
      expect(asked).toBeNull();
      return;
    }
    expect(asked).not.toBeNull();
    // Compared with the text's value, not the generated one: JSON has no -0, which the generator can make.
    const read = JSON.parse(text) as { stream_options?: object | null };
    expect(JSON.parse(asked!.toString())).toEqual({ ...read, stream_options: { ...read.stream_options, include_usage: true } });
    // Without stream options of its own, the client's bytes are kept as they were.
    if (options === undefined) expect(asked!.toString().replace('"stream_options":{"include_usage":true},', '')).toBe(text);
  });

  it('looks only at a top-level stream member, whatever a nested one says', () => {
    const nested = JSON.stringify({ model: 'm', tools: [{ type: 'function', function: { name: 'f', parameters: { properties: { stream: true } } } }] });
    expect(bodyAskingStreamUsage(Buffer.from(nested))).toBeNull();
    expect(bodyAskingStreamUsage(Buffer.from('not json "stream": true'))).toBeNull();
    expect(bodyAskingStreamUsage(Buffer.from('[{"stream": true}]'))).toBeNull();
  });
});

const deltaArb = fc.string({ maxLength: 12 });
const streamArb = fc.record({
  deltas: fc.array(deltaArb, { maxLength: 6 }),
  usage: fc.record({ prompt_tokens: fc.nat(1000), completion_tokens: fc.nat(1000) }),
  eol: fc.constantFrom('\n', '\r\n'),
  cuts: fc.array(fc.nat(), { maxLength: 8 }),
  done: fc.boolean(),
  /** Before which of the provider's events a keep-alive comment comes. */
  keepAlives: fc.array(fc.boolean(), { maxLength: 8 }),
});

describe('the stream without the usage chunk', () => {
  test.prop([streamArb])('is the provider\'s events and keep-alives without the chunk and the null usage members; the chunk\'s usage is reported', ({ deltas, usage, eol, cuts, done, keepAlives }) => {
    const chunk = (choices: object[], extra: object) => JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices, ...extra });
    // Where the vendor writes it: after choices, last or before a later member (obfuscation padding).
    const withNull = deltas.map((d, i) => chunk([{ index: 0, delta: { content: d }, finish_reason: null }], i % 2 === 0 ? { usage: null } : { usage: null, obfuscation: 'pad' }));
    const asSentAll = deltas.map((d, i) => chunk([{ index: 0, delta: { content: d }, finish_reason: null }], i % 2 === 0 ? {} : { obfuscation: 'pad' }));
    const total = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    const alive = (i: number): boolean => keepAlives[i] === true;
    const provider = [...withNull, chunk([], { usage: total }), ...(done ? ['[DONE]'] : [])].map((data, i) => `${alive(i) ? `: keep-alive${eol}${eol}` : ''}data: ${data}${eol}${eol}`).join('');
    const remover = new UsageChunkRemover();
    let out = '';
    for (const piece of cutAt(Buffer.from(provider), cuts)) out += remover.push(piece);
    out += remover.end();
    const parser = new SseParser(undefined, 'throw', true);
    const events = [...parser.push(Buffer.from(out)), ...parser.end()].map((e) => e.data);
    const expected: string[] = [];
    const sentEvents = [...asSentAll, null, ...(done ? ['[DONE]'] : [])];
    sentEvents.forEach((data, i) => {
      if (alive(i)) expected.push(': keep-alive');
      if (data !== null) expected.push(data);
    });
    expect(events).toEqual(expected);
    expect(remover.usage()).toEqual(total);
  });

  it('keeps a usage that comes with choices, named events and lines of data as they were', () => {
    const remover = new UsageChunkRemover();
    const withChoices = JSON.stringify({ choices: [{ index: 0, delta: { content: 'x' } }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
    const out = remover.push(Buffer.from(`data: ${withChoices}\n\nevent: error\ndata: {"error":\ndata: {"message":"m"}}\n\n`)) + remover.end();
    expect(out).toBe(`data: ${withChoices}\n\nevent: error\ndata: {"error":\ndata: {"message":"m"}}\n\n`);
    expect(remover.usage()).toBeNull();
  });
});
