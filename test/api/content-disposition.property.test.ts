// A file's name is any text a client chose; the content-disposition it is served back with is
// always a header node can send, its `filename*` gives the name back exactly (UTF-8, RFC 8187), and
// its `filename` is a printable-ASCII stand-in that cannot end the quoted string.
import { validateHeaderValue } from 'node:http';
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { attachmentDisposition } from '../../runtime/api/files/content-disposition.ts';

const name = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constantFrom('report.jsonl', '日本語.jsonl', 'a"b\\c.jsonl', 'x\r\ny: z', '😀', '\ud800.jsonl'));

describe('attachmentDisposition', () => {
  test.prop([name], { numRuns: 300 })('is a header node sends, naming the file exactly', (filename) => {
    const header = attachmentDisposition(filename);
    expect(() => validateHeaderValue('content-disposition', header)).not.toThrow();
    const match = /^attachment; filename="([^"\\]*)"(?:; filename\*=UTF-8''([A-Za-z0-9!#$&+\-.^_`|~%]*))?$/.exec(header);
    expect(match).not.toBeNull();
    const [, ascii, encoded] = match!;
    expect(ascii).toMatch(/^[\x20-\x7e]*$/);
    expect(ascii).toHaveLength(filename.length);
    if (encoded === undefined) expect(ascii).toBe(filename);
    else expect(decodeURIComponent(encoded)).toBe(filename.toWellFormed());
  });
});
