// The JSON locator (compiler/config/json-locate.ts) against an independent serializer that records
// where it writes each value and key: for random JSON, minified, pretty-printed or with random
// whitespace, every pointer's position is where that value's (or key's) text starts.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { escapePointerToken, locate, parseWithPositions, type SourcePosition } from '../../compiler/config/json-locate.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';

interface Written {
  text: string;
  values: Map<string, number>;
  keys: Map<string, number>;
}

/** Serializes `value`, calling `gap(i)` for the whitespace before the i-th token, and records offsets. */
function write(value: unknown, gap: (i: number) => string): Written {
  let text = '';
  let token = 0;
  const values = new Map<string, number>();
  const keys = new Map<string, number>();
  const space = () => {
    text += gap(token++);
  };
  const emit = (v: unknown, pointer: string) => {
    space();
    values.set(pointer, text.length);
    if (Array.isArray(v)) {
      text += '[';
      v.forEach((item, i) => {
        if (i > 0) text += ',';
        emit(item, `${pointer}/${i}`);
      });
      space();
      text += ']';
    } else if (v !== null && typeof v === 'object') {
      text += '{';
      Object.entries(v).forEach(([k, item], i) => {
        if (i > 0) text += ',';
        space();
        const child = `${pointer}/${escapePointerToken(k)}`;
        keys.set(child, text.length);
        text += JSON.stringify(k);
        space();
        text += ':';
        emit(item, child);
      });
      space();
      text += '}';
    } else {
      text += JSON.stringify(v);
    }
  };
  emit(value, '');
  space();
  return { text, values, keys };
}

/** Line and column of an offset, counted here from scratch. */
function position(text: string, offset: number): SourcePosition {
  const before = text.slice(0, offset);
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

const whitespace = fc.array(fc.constantFrom('', ' ', '  ', '\t', '\n', '\r\n', '\n    '), { maxLength: 40 });
const style = fc.oneof(
  fc.constant((_: number) => ''),
  whitespace.map((pieces) => (i: number) => (pieces.length === 0 ? '' : pieces[i % pieces.length])),
);
// Keys that exercise pointer escaping, unicode (including surrogate pairs) and escapes in the text.
const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('a/b', 'm~n', '~1', '"q"', '\\', 'é', '😀', '', '\u2028'));
const json: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.string({ maxLength: 5, unit: 'grapheme' }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.uniqueArray(fc.tuple(key, tie('v')), { maxLength: 4, selector: ([k]) => k }).map((entries) => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
      return o;
    }),
  ),
})).v;

describe('parseWithPositions', () => {
  it('reads a key written with an escape right after a parse that left a backslash key at the same place (V8\'s JSON.parse misreads it)', () => {
    JSON.parse(String.raw`{"😀":{"😀":null,"\\":1}}`);
    const parsed = parseWithPositions(String.raw`{"😀":{"😀":null,"\"":1}}`);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(Object.keys((parsed.value as Record<string, object>)['😀'])).toEqual(['😀', '"']);
  });

  it('records where every value and every key starts, whatever the layout', () => {
    fc.assert(
      fc.property(json, style, (value, gap) => {
        const written = write(value, gap);
        const parsed = parseWithPositions(written.text);
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) return;
        // parseJson, not JSON.parse: V8's parse can misread an escaped key after an earlier parse (compiler/config/json-parse.ts).
        expect(parsed.value).toEqual(parseJson(written.text));
        expect([...parsed.map.values.keys()].sort()).toEqual([...written.values.keys()].sort());
        for (const [pointer, offset] of written.values) expect(parsed.map.values.get(pointer), `value ${pointer}`).toEqual(position(written.text, offset));
        expect([...parsed.map.keys.keys()].sort()).toEqual([...written.keys.keys()].sort());
        for (const [pointer, offset] of written.keys) expect(parsed.map.keys.get(pointer), `key ${pointer}`).toEqual(position(written.text, offset));
        expect(parsed.map.duplicates).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });

  it('agrees with JSON.stringify pretty-printing', () => {
    fc.assert(
      fc.property(json, fc.constantFrom(2, 4, '\t'), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        const parsed = parseWithPositions(text);
        if (!parsed.ok) throw new Error(parsed.message);
        for (const [pointer, at] of parsed.map.values) {
          // The text from the recorded position parses (as a prefix) to the value at that pointer.
          const lines = text.split('\n');
          const offset = lines.slice(0, at.line - 1).reduce((n, l) => n + l.length + 1, 0) + at.column - 1;
          const expected = valueAt(value, pointer);
          expect(text[offset]).toBe(JSON.stringify(expected)[0]);
          expect(parseJson(sliceValue(text, offset))).toEqual(parseJson(JSON.stringify(expected)));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('reports each duplicate key at its later occurrence', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 4 }), { minLength: 1, maxLength: 5 }), fc.nat(), fc.nat(), (keys, pick, nest) => {
        const dup = keys[pick % keys.length];
        const members = [...keys.map((k, i) => `${JSON.stringify(k)}: ${i}`), `${JSON.stringify(dup)}: "again"`];
        const inner = `{\n  ${members.join(',\n  ')}\n}`;
        const depth = nest % 3;
        const text = `${'{"outer": ['.repeat(depth)}${inner}${']}'.repeat(depth)}`;
        const parsed = parseWithPositions(text);
        if (!parsed.ok) throw new Error(parsed.message);
        const prefix = '/outer/0'.repeat(depth);
        const pointer = `${prefix}/${escapePointerToken(dup)}`;
        const lastLine = text.split('\n').length - 1;
        expect(parsed.map.duplicates).toEqual([{ pointer, position: { line: lastLine, column: 3 } }]);
        expect(valueAt(parsed.value, pointer)).toBe('again');
      }),
      { numRuns: 200 },
    );
  });

  it('gives the position of a syntax error', () => {
    const bad = parseWithPositions('{\n  "a": 1\n  "b": 2\n}');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.position).toEqual({ line: 3, column: 3 });
  });
});

describe('locate', () => {
  const text = '{\n  "retry": {\n    "attempts": 9\n  },\n  "targets": []\n}';
  const parsed = parseWithPositions(text);
  if (!parsed.ok) throw new Error('fixture');
  it('finds the value, or the key when asked', () => {
    expect(locate(parsed.map, '/retry/attempts')).toEqual({ line: 3, column: 17 });
    expect(locate(parsed.map, '/retry/attempts', true)).toEqual({ line: 3, column: 5 });
  });
  it('falls back to the nearest existing ancestor for a missing pointer', () => {
    expect(locate(parsed.map, '/retry/on_status_codes/0')).toEqual({ line: 2, column: 12 });
    expect(locate(parsed.map, '/targets/3/name')).toEqual({ line: 5, column: 14 });
    expect(locate(parsed.map, '/nothing')).toEqual({ line: 1, column: 1 });
  });
});

function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, token) => (node as Record<string, unknown>)[token], root);
}

/** The shortest prefix of text[offset…] that is one complete JSON value. */
function sliceValue(text: string, offset: number): string {
  for (let end = offset + 1; end <= text.length; end++) {
    const candidate = text.slice(offset, end);
    try {
      JSON.parse(candidate);
      // A number prefix ("1" of "12") parses too: only stop where the value cannot continue.
      if (/[0-9.eE+-]/.test(text[end] ?? '') && /^-?\d/.test(candidate)) continue;
      return candidate;
    } catch {
      // keep extending
    }
  }
  throw new Error(`no JSON value at ${offset}`);
}
