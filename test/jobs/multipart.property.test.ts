// The upload reader: whatever sizes the body arrives in, it yields the parts the body holds; a file
// past the limit is refused as soon as the bytes cross it; broken bodies are errors, never hangs.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { boundaryOf, DEFAULT_MULTIPART_LIMITS, FilePartTooLarge, MultipartError, MultipartReader, type FormPart } from '../../runtime/core/multipart.ts';

interface Part {
  name: string;
  filename: string | null;
  data: Uint8Array;
}

const BOUNDARY = 'gw-test-boundary-7Qx';

function encode(parts: Part[], preamble = ''): Buffer {
  const chunks: Buffer[] = [Buffer.from(preamble)];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === null ? '' : `; filename="${part.filename}"`}`;
    chunks.push(Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: ${disposition}\r\n${part.filename === null ? '' : 'content-type: application/jsonl\r\n'}\r\n`));
    chunks.push(Buffer.from(part.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

/** Feeds `body` cut at the given offsets. */
function read(body: Buffer, cuts: number[], maxFileBytes = 1 << 20): FormPart[] {
  const reader = new MultipartReader(BOUNDARY, { ...DEFAULT_MULTIPART_LIMITS, maxFileBytes });
  const points = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((a, b) => a - b);
  let start = 0;
  for (const point of [...points, body.length]) {
    reader.push(body.subarray(start, point));
    start = point;
  }
  return reader.end();
}

const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/);
// Bodies that may contain CR, LF, dashes and even most of the boundary, but never all of it.
const data = fc.uint8Array({ maxLength: 300 }).map((bytes) => {
  const text = Buffer.from(bytes);
  return text.includes(`--${BOUNDARY}`) ? new Uint8Array(0) : bytes;
});
const tricky = fc.constantFrom(Buffer.from('\r\n--gw-test'), Buffer.from('\r\n'), Buffer.from(`--${BOUNDARY.slice(0, -1)}`), Buffer.from('\r\n\r\n'));
// Checked again once joined: pieces may spell the boundary between them ("\r\n\r\n" + "--gw-test-boundary-7Q" + "x"),
// and a client never sends a body that holds its own delimiter.
const partData = fc
  .array(fc.oneof(data, tricky.map((b) => new Uint8Array(b))), { maxLength: 4 })
  .map((pieces) => Buffer.concat(pieces.map((p) => Buffer.from(p))))
  .map((joined) => new Uint8Array(joined.includes(`--${BOUNDARY}`) ? Buffer.alloc(0) : joined));
const parts = fc.array(fc.record({ name, filename: fc.option(fc.stringMatching(/^[a-z]{1,8}\.jsonl$/), { nil: null }), data: partData }), { minLength: 0, maxLength: 5 });

describe('MultipartReader', () => {
  test.prop([parts, fc.array(fc.nat(), { maxLength: 40 }), fc.constantFrom('', 'preamble text\r\n')])('yields the same parts however the body is cut', (expected, cuts, preamble) => {
    const body = encode(expected, preamble);
    const got = read(body, cuts);
    expect(got.map((p) => ({ name: p.name, filename: p.filename, data: new Uint8Array(p.data) }))).toEqual(expected);
  });

  test.prop([fc.integer({ min: 1, max: 200 }), fc.integer({ min: 0, max: 50 }), fc.array(fc.nat(), { maxLength: 20 })])('refuses a file past the limit, and only then', (limit, extra, cuts) => {
    const size = Math.max(0, limit - 25 + extra);
    const body = encode([{ name: 'purpose', filename: null, data: Buffer.from('batch') }, { name: 'file', filename: 'a.jsonl', data: Buffer.alloc(size, 0x61) }]);
    if (size > limit) expect(() => read(body, cuts, limit)).toThrow(FilePartTooLarge);
    else expect(read(body, cuts, limit)[1].data.length).toBe(size);
  });

  test.prop([parts.filter((p) => p.length > 0), fc.nat()])('a body cut short is an error, not a result', (expected, cut) => {
    const body = encode(expected);
    const reader = new MultipartReader(BOUNDARY, { ...DEFAULT_MULTIPART_LIMITS, maxFileBytes: 1 << 20 });
    reader.push(body.subarray(0, cut % (body.length - 3)));
    expect(() => reader.end()).toThrow(MultipartError);
  });

  it('refuses parts without a name, headers without a colon, too many parts and oversized fields', () => {
    const reader = (text: string) => {
      const r = new MultipartReader(BOUNDARY, { ...DEFAULT_MULTIPART_LIMITS, maxFileBytes: 100 });
      r.push(Buffer.from(text));
      return r;
    };
    expect(() => reader(`--${BOUNDARY}\r\ncontent-disposition: form-data\r\n\r\nx\r\n--${BOUNDARY}--`)).toThrow(/no name/);
    expect(() => reader(`--${BOUNDARY}\r\nbroken\r\n\r\nx\r\n--${BOUNDARY}--`)).toThrow(/malformed/);
    expect(() => reader(`--${BOUNDARY}xy`)).toThrow(/line break/);
    const many = encode(Array.from({ length: 17 }, (_, i) => ({ name: `f${i}`, filename: null, data: Buffer.from('v') })));
    expect(() => read(many, [])).toThrow(/at most 16 parts/);
    const big = encode([{ name: 'purpose', filename: null, data: Buffer.alloc(64 * 1024 + 1, 0x62) }]);
    expect(() => read(big, [])).toThrow(MultipartError);
    // A body without a boundary is dropped as preamble as it streams, then refused at its end.
    expect(() => read(Buffer.alloc(20_000, 0x20), [])).toThrow(/ends before its closing boundary/);
  });

  it('reads the boundary from the content type', () => {
    expect(boundaryOf('multipart/form-data; boundary=abc')).toBe('abc');
    expect(boundaryOf('Multipart/Form-Data; charset=utf-8; boundary="a b"')).toBe('a b');
    expect(boundaryOf('application/json')).toBeNull();
    expect(boundaryOf('multipart/form-data')).toBeNull();
    expect(boundaryOf(undefined)).toBeNull();
  });
});
