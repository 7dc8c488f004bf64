// withMember adds one member to a JSON object's bytes without parsing it: for any object in any
// layout, the result parses as the object with that member (last, so it wins over one already there),
// and bytes that are not an object give null.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { withMember } from '../../runtime/pipeline/answers.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';

const key = fc.constantFrom('hook_results', 'id', 'é', 'choices');
const object = fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
const layout = fc.constantFrom(undefined, 2, '\t');
const padding = fc.constantFrom('', ' ', '\n', '\r\n\t ');

describe('withMember', () => {
  test.prop([object, fc.jsonValue({ maxDepth: 2 }), layout, padding, padding], { numRuns: 300 })('gives the object with the member added, in any layout', (value, member, indent, before, after) => {
    const body = Buffer.from(`${before}${JSON.stringify(value, null, indent)}${after}`);
    const out = withMember(body, 'hook_results', member);
    expect(out).not.toBeNull();
    expect(parseJson(out!.toString('utf8'))).toEqual(parseJson(JSON.stringify({ ...value, hook_results: member })));
  });

  test.prop([fc.jsonValue({ maxDepth: 2 }).filter((v) => typeof v !== 'object' || v === null || Array.isArray(v))], { numRuns: 100 })('is null for JSON that is not an object', (value) => {
    expect(withMember(Buffer.from(JSON.stringify(value)), 'hook_results', 1)).toBeNull();
  });
});
