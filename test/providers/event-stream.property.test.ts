// The binary event-stream framing: what the cloud C mock encodes (its own CRC32 and writer), the
// gateway's decoder reads back, whatever the chunking; any flipped bit is caught by a checksum.
import { describe, expect } from 'vitest';
import { test } from '@fast-check/vitest';
import fc from 'fast-check';
import { EventStreamDecoder, EventStreamError } from '../../runtime/providers/cloudc/event-stream.ts';
import { encodeMessage } from '../mocks/cloudc/index.ts';
import { cutAt } from '../support/cut.ts';

const headerName = fc.stringMatching(/^[:a-zA-Z][a-zA-Z0-9:_-]{0,20}$/);
const messageArb = fc.record({
  headers: fc.dictionary(headerName, fc.string({ maxLength: 40, unit: 'grapheme' }), { maxKeys: 4 }),
  payload: fc.uint8Array({ maxLength: 300 }),
});

describe('event-stream framing', () => {
  test.prop([fc.array(messageArb, { minLength: 1, maxLength: 6 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 })])(
    'decode(encode(messages)) = messages, however the bytes are chunked',
    (messages, fractions) => {
      const wire = Buffer.concat(messages.map((m) => encodeMessage(m.headers, Buffer.from(m.payload))));
      const decoder = new EventStreamDecoder();
      const decoded = cutAt(wire, fractions.map((f) => Math.floor(f * wire.length))).flatMap((chunk) => decoder.push(chunk));
      expect(decoder.pending).toBe(0);
      expect(decoded.map((m) => ({ headers: { ...m.headers }, payload: new Uint8Array(m.payload) }))).toEqual(messages.map((m) => ({ headers: m.headers, payload: m.payload })));
    },
  );

  test.prop([messageArb, fc.nat(), fc.integer({ min: 0, max: 7 })])('a flipped bit anywhere is a framing error', (message, at, bit) => {
    const wire = Buffer.from(encodeMessage(message.headers, Buffer.from(message.payload)));
    wire[at % wire.length] ^= 1 << bit;
    expect(() => new EventStreamDecoder().push(wire)).toThrow(EventStreamError);
  });

  test.prop([messageArb, fc.integer({ min: 1, max: 15 })])('a truncated message stays pending, never decoded', (message, missing) => {
    const wire = encodeMessage(message.headers, Buffer.from(message.payload));
    const decoder = new EventStreamDecoder();
    expect(decoder.push(wire.subarray(0, Math.max(0, wire.length - missing)))).toEqual([]);
    expect(decoder.pending).toBeGreaterThan(0);
  });
});
