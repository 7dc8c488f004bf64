// The batch input format checked line by line: every well-formed file parses to its requests in
// order (blank lines skipped, line numbers kept); one broken line is reported at its line number
// with the code of what is wrong; output lines follow the vendor's batch output format.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { MAX_REPORTED_ERRORS, outputLine, parseBatchFile } from '../../runtime/jobs/batch-lines.ts';
import { watchEventLoop } from '../support/event-loop-watch.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';

const endpoint = fc.constantFrom('/v1/chat/completions', '/v1/completions', '/v1/embeddings');
const body = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/).filter((k) => k !== 'stream'), fc.jsonValue(), { maxKeys: 4 });
const request = (url: string) => fc.record({ custom_id: fc.string({ minLength: 1, maxLength: 20 }), method: fc.constant('POST'), url: fc.constant(url), body });
const file = endpoint.chain((url) =>
  fc.tuple(fc.constant(url), fc.uniqueArray(request(url), { minLength: 1, maxLength: 12, selector: (r) => r.custom_id }), fc.array(fc.boolean(), { maxLength: 12 })),
);

/** The lines of a file with blank lines where `blanks` says, and the line number of each request. */
function layout(requests: unknown[], blanks: boolean[]): { text: string; numbers: number[] } {
  const lines: string[] = [];
  const numbers: number[] = [];
  requests.forEach((r, i) => {
    if (blanks[i]) lines.push('   ');
    lines.push(JSON.stringify(r));
    numbers.push(lines.length);
  });
  return { text: lines.join('\n') + '\n', numbers };
}

const BREAKS: Array<[string, (r: Record<string, unknown>) => unknown]> = [
  ['invalid_json', () => '{"custom_id": '],
  ['invalid_json', () => [1, 2]],
  ['invalid_custom_id', (r) => ({ ...r, custom_id: '' })],
  ['invalid_custom_id', (r) => ({ ...r, custom_id: 7 })],
  ['invalid_method', (r) => ({ ...r, method: 'GET' })],
  ['invalid_url', (r) => ({ ...r, url: '/v1/images/generations' })],
  ['invalid_body', (r) => ({ ...r, body: 'text' })],
  ['invalid_body', (r) => ({ ...r, body: { stream: true } })],
];

describe('parseBatchFile', () => {
  test.prop([file])('parses every request in order, keeping line numbers', async ([url, requests, blanks]) => {
    const { text, numbers } = layout(requests, blanks);
    for (const against of [null, url]) {
      const parsed = (await parseBatchFile(Buffer.from(text), against));
      expect(parsed.errors).toEqual([]);
      // Bodies compare as JSON reads them back (-0 is written as 0).
      expect(parsed.lines).toEqual(requests.map((r, i) => ({ index: i, lineNumber: numbers[i], customId: r.custom_id, body: parseJson(JSON.stringify(r.body)) })));
    }
  });

  test.prop([file, fc.nat(), fc.integer({ min: 0, max: BREAKS.length - 1 })])('reports a broken line at its line number with its code', async ([, requests, blanks], at, which) => {
    const index = at % requests.length;
    const [code, breakIt] = BREAKS[which];
    const broken = requests.map((r, i) => (i === index ? breakIt(r) : r));
    const lines: string[] = [];
    let expectedLine = 0;
    broken.forEach((r, i) => {
      if (blanks[i]) lines.push('');
      lines.push(typeof r === 'string' ? r : JSON.stringify(r));
      if (i === index) expectedLine = lines.length;
    });
    const parsed = (await parseBatchFile(Buffer.from(lines.join('\n')), null));
    expect(parsed.errors[0]).toMatchObject({ code, line: expectedLine });
    expect(parsed.lines).toHaveLength(requests.length - 1);
  });

  test.prop([file])('against another endpoint, every line is a mismatched url', async ([url, requests, blanks]) => {
    const other = url === '/v1/embeddings' ? '/v1/completions' : '/v1/embeddings';
    const parsed = (await parseBatchFile(Buffer.from(layout(requests, blanks).text), other));
    expect(parsed.errors.map((e) => e.code)).toEqual(requests.slice(0, MAX_REPORTED_ERRORS).map(() => 'mismatched_url'));
    expect(parsed.lines).toEqual([]);
  });

  it('reports duplicates, invalid UTF-8 and empty files', async () => {
    const line = (id: string) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/embeddings', body: {} });
    expect((await parseBatchFile(Buffer.from(`${line('a')}\n${line('b')}\n${line('a')}`), null)).errors).toEqual([
      { code: 'duplicate_custom_id', param: 'custom_id', line: 3, message: expect.stringContaining('"a"') },
    ]);
    expect((await parseBatchFile(Buffer.concat([Buffer.from(`${line('a')}\n`), Buffer.from([0xff, 0xfe]), Buffer.from('\n')]), null)).errors[0]).toMatchObject({ code: 'invalid_json', line: 2 });
    expect((await parseBatchFile(Buffer.from('\n \n'), null)).errors).toEqual([{ code: 'empty_file', param: 'file', line: null, message: expect.any(String) }]);
    // Located, in words that quote none of the line (it may hold a key).
    expect((await parseBatchFile(Buffer.from(`${line('a')}\n{"custom_id": "b", "body": {"api_key": sk-secret-1}}`), null)).errors).toEqual([
      { code: 'invalid_json', param: null, line: 2, message: "Line 2 is not valid JSON at character 40: unexpected 's' where a value should be (strings go in double quotes)." },
    ]);
    const many = Array.from({ length: MAX_REPORTED_ERRORS + 20 }, () => '{').join('\n');
    expect((await parseBatchFile(Buffer.from(many), null)).errors).toHaveLength(MAX_REPORTED_ERRORS);
  });

  it('checks a large file in time slices: the event loop keeps running (in one go, 20 MB held it ~215 ms)', async () => {
    const padding = 'x'.repeat(300);
    const text = Array.from({ length: 45_000 }, (_, i) => JSON.stringify({ custom_id: `r${i}`, method: 'POST', url: '/v1/embeddings', body: { model: 'm', input: `${padding} ${i}` } })).join('\n');
    const content = Buffer.from(text);
    const watch = watchEventLoop();
    const parsed = await parseBatchFile(content, '/v1/embeddings');
    const longest = watch.stop();
    expect(parsed.errors).toEqual([]);
    expect(parsed.lines).toHaveLength(45_000);
    expect(longest).toBeLessThan(100);
  });

  it('writes output lines in the vendor batch output format', () => {
    const ok = JSON.parse(outputLine('a', { status_code: 200, request_id: 'req_1', body: { x: 1 } }, null));
    expect(ok).toEqual({ id: expect.stringMatching(/^batch_req_[0-9a-f]{24}$/), custom_id: 'a', response: { status_code: 200, request_id: 'req_1', body: { x: 1 } }, error: null });
    const failed = JSON.parse(outputLine('b', null, { code: 'batch_expired', message: 'late' }));
    expect(failed).toMatchObject({ custom_id: 'b', response: null, error: { code: 'batch_expired', message: 'late' } });
  });
});
