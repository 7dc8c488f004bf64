// The text messages of a WebSocket's bytes (what the request log reads a realtime session's usage
// from): whatever the framing (fragments, control frames between them, masks, the three length
// forms) and however the bytes are cut into chunks, the text messages come out whole and in order,
// and binary or overlong ones never do.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WebSocketTextMessages } from '../../runtime/core/web-socket-messages.ts';
import { encodeFrame, OPCODE } from '../mocks/http/web-socket.ts';

const MAX_BYTES = 300;

/** A message: its opcode, its payload, cut into fragments at these points, with a ping after each fragment that says so. */
interface Message {
  opcode: number;
  payload: Uint8Array;
  cuts: number[];
  pings: boolean[];
  mask?: Uint8Array;
}

const message: fc.Arbitrary<Message> = fc.record({
  opcode: fc.constantFrom(OPCODE.text, OPCODE.text, OPCODE.binary),
  // Mostly short; some past 125 (a 16-bit length) and past the kept size; one in a while past 65,535 (a 64-bit length).
  payload: fc.oneof(
    { weight: 6, arbitrary: fc.uint8Array({ maxLength: 400 }) },
    { weight: 1, arbitrary: fc.integer({ min: 65_536, max: 70_000 }).map((n) => new Uint8Array(n).fill(0x61)) },
  ),
  cuts: fc.array(fc.nat(), { maxLength: 3 }),
  pings: fc.array(fc.boolean(), { maxLength: 4 }),
  mask: fc.option(fc.uint8Array({ minLength: 4, maxLength: 4 }), { nil: undefined }),
});

/** Where a message's payload is cut into fragments. */
function cutPoints(m: Message): number[] {
  return [...new Set(m.cuts.map((c) => c % (m.payload.length + 1)))].sort((a, b) => a - b);
}

function fragmentsOf(m: Message): number {
  return cutPoints(m).length + 1;
}

function framesOf(m: Message): Buffer {
  const payload = Buffer.from(m.payload);
  const points = cutPoints(m);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const point of [...points, payload.length]) {
    pieces.push(payload.subarray(from, point));
    from = point;
  }
  const mask = m.mask === undefined ? undefined : Buffer.from(m.mask);
  const frames: Buffer[] = [];
  pieces.forEach((piece, i) => {
    frames.push(encodeFrame(i === 0 ? m.opcode : OPCODE.continuation, piece, i === pieces.length - 1, mask));
    // Control frames may come between a message's fragments (RFC 6455 §5.4).
    if (m.pings[i] === true && i < pieces.length - 1) frames.push(encodeFrame(OPCODE.ping, Buffer.from('ping'), true, mask));
  });
  return Buffer.concat(frames);
}

describe('WebSocketTextMessages', () => {
  it('yields each text message up to the kept size, whole and in order, however it is framed and cut', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 8 }), fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 20 }), (messages, chunkSizes) => {
        const bytes = Buffer.concat(messages.map(framesOf));
        const reader = new WebSocketTextMessages(MAX_BYTES);
        const got: string[] = [];
        let at = 0;
        for (let i = 0; at < bytes.length; i++) {
          const size = chunkSizes[i % chunkSizes.length];
          for (const text of reader.push(bytes.subarray(at, at + size))) got.push(text.toString('latin1'));
          at += size;
        }
        const expected = messages.filter((m) => m.opcode === OPCODE.text && m.payload.length <= MAX_BYTES).map((m) => Buffer.from(m.payload).toString('latin1'));
        expect(got).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('tells a listener each control frame between the fragments, with its payload, and still yields the messages', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), fc.integer({ min: 1, max: 700 }), (messages, size) => {
        const bytes = Buffer.concat(messages.map(framesOf));
        const controls: string[] = [];
        const reader = new WebSocketTextMessages(MAX_BYTES, (opcode, payload) => controls.push(`${opcode}:${payload.toString('latin1')}`));
        let texts = 0;
        for (let at = 0; at < bytes.length; at += size) texts += reader.push(bytes.subarray(at, at + size)).length;
        const pings = messages.reduce((n, m) => n + m.pings.filter((ping, i) => ping && i < fragmentsOf(m) - 1).length, 0);
        expect(controls).toEqual(Array.from({ length: pings }, () => `${OPCODE.ping}:ping`));
        expect(texts).toBe(messages.filter((m) => m.opcode === OPCODE.text && m.payload.length <= MAX_BYTES).length);
      }),
      { numRuns: 200 },
    );
  });

  it('reads any bytes at all (a provider that is no WebSocket server) without throwing or yielding more than the kept size', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 2000 }), { maxLength: 10 }), (chunks) => {
        const reader = new WebSocketTextMessages(MAX_BYTES);
        for (const chunk of chunks) for (const text of reader.push(Buffer.from(chunk))) expect(text.length).toBeLessThanOrEqual(MAX_BYTES);
      }),
      { numRuns: 300 },
    );
  });

  it('yields a message the same when it comes in one chunk', () => {
    const reader = new WebSocketTextMessages(MAX_BYTES);
    const bytes = Buffer.concat([encodeFrame(OPCODE.text, Buffer.from('{"a":')), encodeFrame(OPCODE.text, Buffer.from('first'), false), encodeFrame(OPCODE.continuation, Buffer.alloc(0))]);
    expect(reader.push(bytes).map(String)).toEqual(['{"a":', 'first']);
  });
});
