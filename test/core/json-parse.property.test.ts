// parseJson reads every JSON text as JSON.parse should, in a process whose earlier parses left keys
// with a literal backslash behind: V8 (nodejs/node#63785) then reads a later key written with an
// escape (`"\n"`, `"\""`, `"caf\u00e9"`) at the same place as that earlier key.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../compiler/config/json-parse.ts';

/** Keys made mostly of the characters JSON escapes, and of backslashes. */
const key = fc.oneof(fc.string({ unit: fc.constantFrom('\\', '"', '\n', '\r', '\t', '\u0000', 'a', 'é', '\u2028'), maxLength: 4 }), fc.string({ unit: 'binary', maxLength: 6 }));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(null, true, false), fc.integer(), fc.string({ maxLength: 4 }), fc.array(tie('value'), { maxLength: 3 }), tie('object')),
  object: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
})).value;

describe('parseJson', () => {
  it('reads escaped keys right after an earlier parse left a key with a backslash at the same place', () => {
    JSON.parse('{"h":[],"\\\\":0}');
    expect(Object.keys(parseJson('{"h":1,"\\"":2}') as object)).toEqual(['h', '"']);
    JSON.parse('{"b":1,"caf\\\\":2}');
    expect(Object.keys(parseJson('{"b":1,"caf\\u00e9":2}') as object)).toEqual(['b', 'café']);
    expect(Object.keys(parseJson('{"b":1,"caf\\n":2}') as object)).toEqual(['b', 'caf\n']);
  });

  it('keeps what JSON.parse makes of a `__proto__` key (an own property), duplicate keys (the last value) and any depth', () => {
    JSON.parse('{"\\\\":0}');
    const proto = parseJson('{"__proto__":{"x":1},"\\n":2}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(['__proto__', '\n']);
    expect(parseJson('{"\\n":1,"a":2,"\\n":3}')).toEqual({ '\n': 3, a: 2 });
    const deep = `${'{"\\n":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    let value = parseJson(deep);
    for (let i = 0; i < 20_000; i++) value = (value as Record<string, unknown>)['\n'];
    expect(value).toBe(1);
  });

  test.prop([json], { numRuns: 300 })('reads back what JSON.stringify wrote, after the text most likely to mislead it was parsed', (value) => {
    // Each key written with an escape, cut after its first backslash: the key that leads V8 astray.
    const poison = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(poison);
      if (v === null || typeof v !== 'object') return v;
      return Object.fromEntries(Object.entries(v).map(([k, x]) => {
        const raw = JSON.stringify(k).slice(1, -1);
        const cut = raw.indexOf('\\');
        return [cut === -1 ? k : `${raw.slice(0, cut)}\\`, poison(x)];
      }));
    };
    JSON.parse(JSON.stringify(poison(value)));
    const text = JSON.stringify(value);
    expect(JSON.stringify(parseJson(text))).toBe(text);
  });

  it('throws what JSON.parse throws for text that is not JSON', () => {
    expect(() => parseJson('{"a":')).toThrow(SyntaxError);
  });
});
