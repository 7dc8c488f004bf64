import { describe, expect, it } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import { compareEq, eq, gt, gte, inList, lt, lte, matches, ne, notInList, readField } from '../../compiler/config/query-operators.ts';
import { checkPattern, compilePattern, MAX_MATCH_WORK, PatternWorkError, replacePattern, testPattern } from '../../compiler/config/linear-regex.ts';

const MISSING = undefined;
const ops = { eq, ne, gt, gte, lt, lte, inList, notInList } as const;

// [operator, field value, operand, expected]: the reference semantics written down row by row.
const table: Array<[keyof typeof ops, unknown, unknown, boolean]> = [
  ['eq', 'gpt-4o', 'gpt-4o', true],
  ['eq', 'gpt-4o', 'gpt-4', false],
  ['eq', 1, 1, true],
  ['eq', 1, '1', false],
  ['eq', 0, -0, true],
  ['eq', true, true, true],
  ['eq', true, 1, false],
  ['eq', null, null, true],
  ['eq', MISSING, null, false],
  ['eq', null, false, false],
  ['eq', { a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, true],
  ['eq', { a: 1 }, { a: 1, b: 2 }, false],
  ['eq', { a: undefined }, { b: undefined }, false],
  ['eq', [1, 2], [2, 1], false],
  ['eq', [1, 2], [1, 2], true],
  ['eq', [], {}, false],
  ['eq', ['a', 'b'], 'a', false],
  ['ne', 'a', 'b', true],
  ['ne', 'a', 'a', false],
  ['ne', MISSING, 'a', true],
  ['ne', MISSING, null, true],
  ['ne', { x: [1] }, { x: [1] }, false],
  ['gt', 5, 3, true],
  ['gt', 3, 3, false],
  ['gt', '10', '9', false],
  ['gt', 'b', 'a', true],
  ['gt', '5', 3, false],
  ['gt', 5, '3', false],
  ['gt', null, -1, false],
  ['gt', true, 0, false],
  ['gt', MISSING, 0, false],
  ['gt', [5], 3, false],
  ['gte', 3, 3, true],
  ['gte', 2.5, 3, false],
  ['gte', 'abc', 'abc', true],
  ['lt', -1, 0, true],
  ['lt', 0, 0, false],
  ['lt', 'B', 'a', true],
  ['lt', MISSING, 10, false],
  ['lt', null, 10, false],
  ['lte', 0, 0, true],
  ['lte', 1, 0, false],
  ['lte', 'a', 1, false],
  ['inList', 'a', ['a', 'b'], true],
  ['inList', 'c', ['a', 'b'], false],
  ['inList', 1, ['1'], false],
  ['inList', { m: 1 }, [{ m: 1 }], true],
  ['inList', ['x', 'b'], ['a', 'b'], true],
  ['inList', ['x', 'y'], ['a', 'b'], false],
  ['inList', ['a', 'b'], [['a', 'b']], true],
  ['inList', [], ['a'], false],
  ['inList', null, [null], true],
  ['inList', MISSING, [null], false],
  ['inList', 'a', [], false],
  ['inList', 'a', 'a', false],
  ['notInList', 'c', ['a', 'b'], true],
  ['notInList', 'a', ['a', 'b'], false],
  ['notInList', ['x', 'a'], ['a'], false],
  ['notInList', MISSING, ['a'], true],
  ['notInList', 'a', [], true],
];

describe('comparison operators', () => {
  for (const [op, value, operand, expected] of table) {
    test(`${op}(${JSON.stringify(value) ?? 'missing'}, ${JSON.stringify(operand)}) is ${expected}`, () => {
      expect(ops[op](value, operand)).toBe(expected);
    });
  }

  test('matches only strings, with the precompiled pattern', () => {
    expect(matches('gpt-4o-mini', compilePattern('^gpt-4o'))).toBe(true);
    expect(matches('claude', compilePattern('^gpt-4o'))).toBe(false);
    expect(matches(42, compilePattern('4'))).toBe(false);
    expect(matches(['gpt-4o'], compilePattern('gpt'))).toBe(false);
    expect(matches(MISSING, compilePattern('.*'))).toBe(false);
    expect(matches(null, compilePattern('null'))).toBe(false);
  });

  test('a pattern gives the same answer every time (no state carried between requests)', () => {
    const pattern = compilePattern('a');
    expect([matches('aaa', pattern), matches('aaa', pattern), matches('aaa', pattern)]).toEqual([true, true, true]);
  });

  test('runs in linear time: a pattern that backtracks catastrophically in JavaScript answers at once', () => {
    const pattern = compilePattern('^(a+)+$');
    const started = performance.now();
    for (const n of [32, 1000, 100_000]) expect(matches(`${'a'.repeat(n)}!`, pattern)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('reads the size of a compiled pattern in steps (re2js keeps it internal: a version that moves it fails here)', () => {
    expect(compilePattern('abc').steps).toBeGreaterThan(3);
    expect(compilePattern('[a-z]{1000}').steps).toBeGreaterThan(1000);
  });

  it('compiles a pattern once for its text (checked, planned, built, or named by many targets), keeping the most recent 50,000 steps of them', () => {
    const first = compilePattern('^cached-once$');
    expect(compilePattern('^cached-once$')).toBe(first);
    expect(checkPattern('^checked-first$')).toMatchObject({ ok: true });
    const checked = compilePattern('^checked-first$');
    expect(compilePattern('^checked-first$')).toBe(checked);
    // About 60 patterns of ~1,000 steps later the first have gone, and are compiled anew.
    for (let i = 0; i < 60; i++) compilePattern(`[a-z]{1000}evict${i}`);
    expect(compilePattern('^cached-once$')).not.toBe(first);
    expect(compilePattern('[a-z]{1000}evict59').steps).toBeGreaterThan(1000);
  });

  it('refuses a pattern that compiles to more steps than the bound, whose every character could cost each step', () => {
    expect(checkPattern('[a-z]{1000}')).toEqual({ ok: true, steps: 1002 });
    expect(checkPattern('.{0,500}')).toMatchObject({ ok: true });
    const refused = checkPattern('[a-z]{1000}[a-z]{1000}');
    expect(refused).toMatchObject({ ok: false, unsupported: true, message: expect.stringMatching(/^it compiles to \d+ steps, more than 1100/) });
  });

  test.prop([fc.integer({ min: 1, max: 60 }), fc.nat({ max: 40 })], { numRuns: 40 })(
    'matches a text up to characters × steps of MAX_MATCH_WORK, and refuses a longer one without looking at it',
    (count, extra) => {
      const pattern = compilePattern(`[a-z]{${count}}[0-9]`);
      const most = Math.floor(MAX_MATCH_WORK / pattern.steps);
      expect(testPattern(pattern, `${'a'.repeat(Math.min(most, 5000) - 1)}1`)).toBe(true);
      const tooLong = 'a'.repeat(most + 1 + extra);
      expect(() => testPattern(pattern, tooLong)).toThrow(PatternWorkError);
      expect(() => replacePattern(pattern, tooLong, () => 'x')).toThrow(/^the text \(\d+ characters\) is too long to match against the pattern \/\[a-z\]\{\d+\}\[0-9\]\/ \(\d+ steps\): at most \d+ characters for it$/);
    },
  );

  test('holds the worst text for the largest pattern allowed (one the state cache cannot hold) to about a second', () => {
    // Three {1000} groups (3,000 steps) took 7.5 s on 50 KB of letters; one group under the bound, at
    // the most text the bound lets through, is the worst that can be asked of a match now.
    const pattern = compilePattern('[a-z]{500}[a-z]{500}[0-9]');
    const text = 'a'.repeat(Math.floor(MAX_MATCH_WORK / pattern.steps));
    const started = performance.now();
    expect(testPattern(pattern, text)).toBe(false);
    expect(replacePattern(pattern, text, () => 'x')).toBe(text);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('refuses a class that begins with "]", which JavaScript and the linear engine read differently', () => {
    for (const pattern of ['[]]*', '[^]]', 'a[]]b']) expect(checkPattern(pattern)).toMatchObject({ ok: false, unsupported: true });
    for (const pattern of ['[\\]]', '\\[]', '[a]]', '[[]]']) expect(checkPattern(pattern)).toMatchObject({ ok: true });
  });

  test.prop([fc.stringMatching(/^[a-z0-9.^$*+?|()\[\]-]{0,12}$/), fc.string({ maxLength: 30 })], { numRuns: 300 })(
    'agrees with JavaScript RegExp on patterns both engines accept',
    (source, text) => {
      let js: RegExp;
      try {
        js = new RegExp(source);
      } catch {
        return;
      }
      if (!checkPattern(source).ok) return;
      expect(matches(text, compilePattern(source))).toBe(js.test(text));
    },
  );

  // Reference: JSON text with keys sorted at every level.
  function canonical(value: unknown): string {
    if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
    if (value !== null && typeof value === 'object') {
      const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
      return `{${entries.join(',')}}`;
    }
    return JSON.stringify(value);
  }

  function reversedKeys(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(reversedKeys);
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(value).reverse()) Object.defineProperty(out, k, { value: reversedKeys((value as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
      return out;
    }
    return value;
  }

  const json = fc.jsonValue({ maxDepth: 4 });
  // Small pools make equal pairs common enough to matter.
  const smallJson = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(null, true, false, 0, 1, 'a', 'b'), fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', '__proto__'), tie('value'), { maxKeys: 2 })),
  })).value;

  test.prop([json], { numRuns: 300 })('eq is reflexive and ignores key order', (value) => {
    expect(eq(value, structuredClone(value))).toBe(true);
    expect(eq(reversedKeys(value), value)).toBe(true);
    expect(ne(value, structuredClone(value))).toBe(false);
  });

  test.prop([smallJson, smallJson], { numRuns: 500 })('compareEq is canonical-JSON equality, symmetric', (a, b) => {
    expect(compareEq(a, b)).toBe(canonical(a) === canonical(b));
    expect(compareEq(b, a)).toBe(compareEq(a, b));
  });

  test.prop([fc.option(smallJson, { nil: undefined }), fc.array(smallJson, { maxLength: 4 })], { numRuns: 500 })(
    'ne is not eq, nin is not in, and in follows the documented array rule',
    (value, list) => {
      for (const operand of list) expect(ne(value, operand)).toBe(!eq(value, operand));
      expect(notInList(value, list)).toBe(!inList(value, list));
      const candidates = value === undefined ? [] : Array.isArray(value) ? [value, ...value] : [value];
      expect(inList(value, list)).toBe(candidates.some((c) => list.some((entry) => canonical(entry) === canonical(c))));
    },
  );

  const scalar = fc.oneof(fc.double({ noNaN: true }), fc.string({ maxLength: 4 }), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.array(fc.integer(), { maxLength: 2 }));
  test.prop([scalar, scalar], { numRuns: 500 })('order operators compare only number with number and string with string', (a, b) => {
    const comparable = (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
    const x = a as number;
    const y = b as number;
    expect(gt(a, b)).toBe(comparable && x > y);
    expect(gte(a, b)).toBe(comparable && x >= y);
    expect(lt(a, b)).toBe(comparable && x < y);
    expect(lte(a, b)).toBe(comparable && x <= y);
  });
});

describe('readField', () => {
  const doc = JSON.parse('{"model":"gpt-4o","meta":{"tier":"pro","tags":["a","b"],"__proto__":{"x":1}},"n":null}') as unknown;

  test('reads nested own values', () => {
    expect(readField(doc, ['model'])).toBe('gpt-4o');
    expect(readField(doc, ['meta', 'tier'])).toBe('pro');
    expect(readField(doc, ['meta', 'tags', '1'])).toBe('b');
    expect(readField(doc, ['n'])).toBeNull();
    expect(readField(doc, [])).toBe(doc);
  });

  test('missing paths, non-objects on the way and non-index array segments are undefined', () => {
    expect(readField(doc, ['nope'])).toBeUndefined();
    expect(readField(doc, ['model', 'length'])).toBeUndefined();
    expect(readField(doc, ['n', 'x'])).toBeUndefined();
    expect(readField(doc, ['meta', 'tags', 'length'])).toBeUndefined();
    expect(readField(doc, ['meta', 'tags', '01'])).toBeUndefined();
    expect(readField(doc, ['meta', 'tags', '5'])).toBeUndefined();
    expect(readField(undefined, ['a'])).toBeUndefined();
  });

  test('prototype names are just keys: missing unless the JSON carried them', () => {
    expect(readField(doc, ['constructor'])).toBeUndefined();
    expect(readField(doc, ['toString'])).toBeUndefined();
    expect(readField(doc, ['__proto__'])).toBeUndefined();
    expect(readField(doc, ['constructor', 'prototype'])).toBeUndefined();
    expect(readField(doc, ['meta', '__proto__', 'x'])).toBe(1);
    expect(readField(doc, ['meta', 'tags', 'map'])).toBeUndefined();
  });

  const keyArb = fc.constantFrom('a', 'b', '0', '1', 'length', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'polluted', 'valueOf');
  const docArb = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(null, 1, 'text', true), fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(keyArb, tie('value'), { maxKeys: 3 })),
  })).value;

  // Reference walk over JSON text: whatever JSON.parse produced as an own key, and nothing else.
  function referenceRead(root: unknown, path: readonly string[]): unknown {
    let current = root;
    for (const key of path) {
      if (current === null || typeof current !== 'object') return undefined;
      if (Array.isArray(current)) {
        if (!/^(0|[1-9]\d*)$/.test(key) || Number(key) >= current.length) return undefined;
        current = current[Number(key)];
      } else {
        const entry = Object.entries(current).find(([k]) => k === key);
        if (entry === undefined) return undefined;
        current = entry[1];
      }
    }
    return current;
  }

  test.prop([docArb, fc.array(keyArb, { maxLength: 4 })], { numRuns: 500 })('never reads inherited properties, even from a polluted prototype', (value, path) => {
    const parsed = JSON.parse(JSON.stringify(value)) as unknown;
    const protos = [Object.prototype, Array.prototype] as unknown as Array<Record<string, unknown>>;
    for (const proto of protos) Object.defineProperty(proto, 'polluted', { value: 'inherited', configurable: true, writable: true });
    try {
      expect(readField(parsed, path)).toEqual(referenceRead(parsed, path));
      expect(readField(parsed, [...path, 'polluted'])).not.toBe('inherited');
    } finally {
      for (const proto of protos) delete proto.polluted;
    }
  });
});
