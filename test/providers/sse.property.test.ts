// The SSE parser the stream mappers read providers with (and the request log's usage tap): any line
// endings, any chunking (inside multi-byte characters too), comments and unknown fields ignored, a
// leading byte order mark ignored; past its bound an event breaks the stream, or is skipped.
import { describe, expect, it } from 'vitest';
import { test } from '@fast-check/vitest';
import fc from 'fast-check';
import { MAX_SSE_EVENT_CHARS, SseEventTooLargeError, SseParser } from '../../runtime/providers/shared/sse.ts';
import { cutAt } from '../support/cut.ts';

const line = fc.string({ maxLength: 30, unit: 'grapheme' }).filter((s) => !/[\r\n]/.test(s));
const eventArb = fc.record({ event: fc.option(fc.stringMatching(/^[a-z_]{1,12}$/), { nil: undefined }), data: fc.array(line, { minLength: 1, maxLength: 3 }) });

describe('SSE parser', () => {
  test.prop([fc.array(eventArb, { maxLength: 5 }), fc.constantFrom('\n', '\r\n', '\r'), fc.array(fc.nat(), { maxLength: 10 }), fc.boolean()])(
    'events come out as written, however the bytes are split',
    (events, eol, cuts, comments) => {
      const text = events.map((e) => [
        ...(comments ? [': keep-alive'] : []),
        ...(e.event !== undefined ? [`event: ${e.event}`] : []),
        ...e.data.map((d) => `data: ${d}`),
        'id: 7',
      ].join(eol) + eol + eol).join('');
      const bytes = Buffer.from(text);
      const parser = new SseParser();
      const out = cutAt(bytes, cuts).flatMap((chunk) => parser.push(chunk));
      out.push(...parser.end());
      expect(out).toEqual(events.map((e) => ({ event: e.event ?? 'message', data: e.data.join('\n') })));
    },
  );
});

describe('SSE parser that skips events past its bound', () => {
  // Events well under the bound, and ones well past it (an event near the bound may be judged by how
  // its bytes were cut: a line not ended yet counts its field name too).
  const small = fc.record({ event: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }), data: fc.array(fc.string({ maxLength: 8 }).filter((s) => !/[\r\n]/.test(s)), { minLength: 1, maxLength: 2 }) });
  const large = fc.integer({ min: 150, max: 400 }).map((n) => ({ event: 'big', data: ['x'.repeat(n)] }));
  test.prop([fc.array(fc.oneof(small, large), { maxLength: 6 }), fc.constantFrom('\n', '\r\n', '\r'), fc.array(fc.nat(), { maxLength: 10 })])(
    'gives every other event as written, however the bytes are split',
    (events, eol, cuts) => {
      const text = events.map((e) => [...(e.event !== undefined ? [`event: ${e.event}`] : []), ...e.data.map((d) => `data: ${d}`)].join(eol) + eol + eol).join('');
      const parser = new SseParser(100, 'skip');
      const out = cutAt(Buffer.from(`\uFEFF${text}`), cuts).flatMap((chunk) => parser.push(chunk));
      out.push(...parser.end());
      expect(out).toEqual(events.filter((e) => e.event !== 'big').map((e) => ({ event: e.event ?? 'message', data: e.data.join('\n') })));
    },
  );
});

describe('SSE parsing stays linear and bounded', () => {
  it('reads a 20 MB data line that arrives in 64 KiB chunks in linear time', () => {
    const parser = new SseParser(32 * 1024 * 1024);
    const payload = 'x'.repeat(20 * 1024 * 1024);
    const bytes = Buffer.from(`event: big\ndata: ${payload}\n\n`);
    const started = performance.now();
    const events = [];
    for (let at = 0; at < bytes.length; at += 64 * 1024) events.push(...parser.push(bytes.subarray(at, at + 64 * 1024)));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(events).toHaveLength(1);
    expect(events[0].data.length).toBe(payload.length);
  });

  it('refuses an event past the bound instead of buffering on', () => {
    const parser = new SseParser(1024);
    expect(() => {
      for (let i = 0; i < 100; i++) parser.push(Buffer.from(`data: ${'y'.repeat(100)}`));
    }).toThrow(SseEventTooLargeError);
    const lines = new SseParser(1024);
    expect(() => {
      for (let i = 0; i < 100; i++) lines.push(Buffer.from(`data: ${'z'.repeat(100)}\n`));
    }).toThrow(SseEventTooLargeError);
    expect(MAX_SSE_EVENT_CHARS).toBeGreaterThanOrEqual(1024 * 1024);
  });
});
