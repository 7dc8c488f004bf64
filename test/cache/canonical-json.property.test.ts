// Canonical JSON (cache keys, inline-config lookups): it reads back as the value it was made from,
// and neither key order nor whitespace changes it.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { canonicalJson } from '../../runtime/core/canonical-json.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';

/** The same value with every object's keys in reverse order, as another client might send it. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversed(v)]));
}

describe('canonicalJson', () => {
  test.prop([fc.jsonValue({ maxDepth: 4 })], { numRuns: 300 })('reads back as the value, and key order does not change it', (value) => {
    const text = canonicalJson(value);
    expect(parseJson(text)).toEqual(parseJson(JSON.stringify(value)));
    expect(canonicalJson(reversed(value))).toBe(text);
    expect(canonicalJson(parseJson(JSON.stringify(value, null, 2)))).toBe(text);
  });

  test.prop([fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)), { minKeys: 2 })], { numRuns: 200 })('writes keys in sorted order', (value) => {
    // Compared as text: parsing would put integer-like keys first, whatever the text's order.
    const expected = `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(value[k])}`).join(',')}}`;
    expect(canonicalJson(value)).toBe(expected);
  });
});
