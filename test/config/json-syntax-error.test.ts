// The located syntax error of a config file (compiler/config/json-syntax-error.ts): it agrees with
// JSON.parse on what is valid, points at the first error, and never quotes more of the text than the
// one character found there (V8's message quoted the text around it: an unquoted key in a config
// reached CI logs).
import { fc } from '@fast-check/vitest';
import { expect, it } from 'vitest';
import { jsonSyntaxError } from '../../compiler/config/json-syntax-error.ts';
import { parseWithPositions } from '../../compiler/config/json-locate.ts';

const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);

/** JSON texts, and texts one edit away from one: a character of JSON's alphabet inserted, or one deleted, or replaced. */
const ALPHABET = ['{', '}', '[', ']', ',', ':', '"', '\\', '-', '0', '1', '.', 'e', '+', 't', 'n', 'u', 'x', ' ', '\n', '\t', '\u0001', 'é', '\ud83d'];
const edited = fc
  .tuple(fc.json({ maxDepth: 4 }), fc.array(fc.tuple(fc.nat(), fc.constantFrom('insert', 'delete', 'replace'), fc.constantFrom(...ALPHABET)), { maxLength: 3 }))
  .map(([text, edits]) => {
    let out = text;
    for (const [at, kind, char] of edits) {
      const i = out.length === 0 ? 0 : at % (out.length + (kind === 'insert' ? 1 : 0));
      out = kind === 'insert' ? out.slice(0, i) + char + out.slice(i) : kind === 'delete' ? out.slice(0, i) + out.slice(i + 1) : out.slice(0, i) + char + out.slice(i + 1);
    }
    return out;
  });

/** JSON.parse's verdict: null when the text parses, else the position its message names (null when it names none). */
function v8Error(text: string): { position: number | null } | null {
  try {
    JSON.parse(text);
    return null;
  } catch (error) {
    const position = /position (\d+)/.exec((error as Error).message);
    return { position: position === null ? null : Number(position[1]) };
  }
}

it('property: finds an error exactly when JSON.parse refuses the text, and never after where JSON.parse stopped', () => {
  fc.assert(
    fc.property(edited, (text) => {
      const error = jsonSyntaxError(text);
      const v8 = v8Error(text);
      expect(error === null).toBe(v8 === null);
      if (error === null) return;
      expect(error.offset).toBeGreaterThanOrEqual(0);
      expect(error.offset).toBeLessThanOrEqual(text.length);
      // V8 names the character it stopped at; ours is the start of the token that holds it (a bad
      // number, escape or literal), or that character.
      if (v8!.position !== null) expect(error.offset).toBeLessThanOrEqual(v8!.position);
    }),
    { numRuns: 3000, seed: SEED, verbose: 1 },
  );
});

it('property: the message quotes no more than one character of the text', () => {
  const secret = 'sk-live-ABCDEFGHIJKLMNOP';
  const withSecret = edited.map((text) => text.replace(/"/, `"${secret}`).replace(/:/, `:${secret}`));
  fc.assert(
    fc.property(withSecret, (text) => {
      const error = jsonSyntaxError(text);
      if (error !== null) expect(error.message).not.toMatch(/sk-|ABC/);
    }),
    { numRuns: 1000, seed: SEED, verbose: 1 },
  );
});

it('locates and explains the usual mistakes', () => {
  const at = (text: string) => {
    const parsed = parseWithPositions(text);
    if (parsed.ok) throw new Error('parsed');
    return `${parsed.position.line}:${parsed.position.column} ${parsed.message}`;
  };
  const cases: Array<[text: string, located: string]> = [
    ['{"provider": "openai", "api_key": sk-live-SECRET}', "1:35 unexpected 's' where a value should be (strings go in double quotes)"],
    ['{"a": 1,\n  "b": [1, 2,]\n}', "2:14 unexpected ']' where a value should be (no comma before a closing bracket)"],
    ['{"a": 1,\n}', "2:1 expected a property name in double quotes, found '}' (no comma before a closing bracket)"],
    ['{"a" 1}', "1:6 expected ':' after a property name, found '1'"],
    ['{"a": 1 "b": 2}', "1:9 expected ',' or '}' after a property value, found '\"'"],
    ['{"a": "x\ty"}', '1:9 control character U+0009 inside a string (write it as an escape such as \\n)'],
    ['{"a": 01}', '1:7 invalid number'],
    ['{"a": "\\q"}', '1:8 invalid escape in a string'],
    ['{"a": "open', '1:12 the text ends inside a string'],
    ['{"a": [1, 2', "1:12 the text ends before the closing ']'"],
    ['{} {}', "1:4 unexpected '{' after the end of the JSON value"],
    ['', '1:1 the text ends where a value should be'],
    ['\ufeff{"a": tru}', "1:7 unexpected 't' where a value should be (strings go in double quotes)"],
  ];
  for (const [text, located] of cases) expect(at(text), text).toBe(located);
  // Nesting deeper than any call stack: found, not a crash.
  expect(jsonSyntaxError('['.repeat(200_000))).toEqual({ offset: 200_000, message: 'the text ends where a value should be' });
});
