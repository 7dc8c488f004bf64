// Properties of `checkConfig` over generated configs: valid ones pass the schema and fail exactly
// the semantic rules they break; deleting a needed key, adding an unknown key or misspelling a known
// one (at any depth) gives the right code at the right pointer, with a "did you mean" for typos.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkConfig, type ConfigError } from '../../compiler/config/index.ts';
import configSchema from '../../schema/config.json' with { type: 'json' };
import { arbitraryFromSchema } from '../property/schema-arbitrary.ts';
import { structurallyValidConfig } from './config-arbitrary.ts';
import { CLOSED_OBJECT_KEYS, closedObjects, neededKeys, valueAtPath, type Place } from './config-walk.ts';
import { escapeToken, type ClosedObjectKind } from './reference-validity.ts';
import { referenceSemanticErrors } from './reference-semantics.ts';

type Obj = Record<string, unknown>;

const errorsOf = (value: unknown): ConfigError[] => {
  const result = checkConfig(value);
  return result.ok ? [] : result.errors;
};
const keyed = (errors: Array<{ code: string; pointer: string }>) => errors.map((e) => `${e.code} ${e.pointer}`).sort();

describe('valid configs', () => {
  it('pass the schema and fail exactly the semantic rules they break', () => {
    const seen = { ok: 0, semantic: 0 };
    fc.assert(
      fc.property(structurallyValidConfig, (config) => {
        const result = checkConfig(config);
        const expected = keyed(referenceSemanticErrors(config));
        expect(result.ok ? [] : keyed(result.errors)).toEqual(expected);
        if (result.ok) {
          seen.ok++;
          expect(result.plan.root.path).toBe('config');
        } else seen.semantic++;
      }),
      { numRuns: 500 },
    );
    expect(seen.ok).toBeGreaterThan(100);
    expect(seen.semantic).toBeGreaterThan(50);
  });
});

describe('configs generated from schema/config.json', () => {
  it('fail exactly the semantic rules the reference predicts', () => {
    fc.assert(
      fc.property(arbitraryFromSchema(configSchema), (config) => {
        const result = checkConfig(config);
        expect(result.ok ? [] : keyed(result.errors)).toEqual(keyed(referenceSemanticErrors(config)));
      }),
      { numRuns: 150 },
    );
  });
});

describe('deleting a key the config needed', () => {
  it('reports the right code at the right pointer, at any depth', () => {
    const depths = new Set<number>();
    fc.assert(
      fc.property(structurallyValidConfig, fc.nat(), (config, pick) => {
        const needed = neededKeys(config);
        fc.pre(needed.length > 0);
        const slot = needed[pick % needed.length];
        depths.add(slot.path.filter((p) => p === 'targets').length);
        const before = keyed(errorsOf(config));
        const broken = structuredClone(config);
        delete (valueAtPath(broken, slot.path) as Obj)[slot.key];
        const after = keyed(errorsOf(broken));
        const expected = `${slot.code} ${slot.pointer}`;
        expect(before).not.toContain(expected);
        expect(after, `deleted ${slot.key} at ${slot.pointer || '/'}`).toContain(expected);
      }),
      { numRuns: 500 },
    );
    expect(Math.max(...depths)).toBeGreaterThanOrEqual(2);
  });

  it.each([
    [{ provider: 'vendor', api_key: 'sk' }, ['api_key'], 'CFG_NO_KEY_SET', ''],
    [{ strategy: { mode: 'fallback' }, targets: [{ virtual_key: 'v' }] }, ['strategy', 'mode'], 'CFG_MISSING_KEY', '/strategy'],
    [
      { strategy: { mode: 'single' }, targets: [{ strategy: { mode: 'fallback' }, targets: [{ strategy: { mode: 'conditional', conditions: [], default: 'a' }, targets: [{ name: 'a', virtual_key: 'v' }] }] }] },
      ['targets', 0, 'targets', 0, 'strategy', 'default'],
      'CFG_CONDITIONAL_INCOMPLETE',
      '/targets/0/targets/0/strategy',
    ],
    [{ strategy: { mode: 'single' }, targets: [{ provider: 'vendor', api_key: 'sk' }] }, ['targets', 0, 'api_key'], 'CFG_NO_KEY_SET', '/targets/0'],
  ] as Array<[Obj, Array<string | number>, string, string]>)('%j without %j gives %s at %j', (config, path, code, pointer) => {
    const broken = structuredClone(config);
    delete (valueAtPath(broken, path.slice(0, -1)) as Obj)[path[path.length - 1] as string];
    const errors = errorsOf(broken);
    expect(errors.map((e) => [e.code, e.pointer])).toContainEqual([code, pointer]);
  });
});

const isKnownAt = (kind: ClosedObjectKind, key: string) => (CLOSED_OBJECT_KEYS[kind] as readonly string[]).includes(key);

function addKey(config: Obj, place: Place, key: string, value: unknown): Obj {
  const copy = structuredClone(config);
  const target = valueAtPath(copy, place.path) as Obj;
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

describe('an unknown key at any depth', () => {
  it('gives CFG_UNKNOWN_KEY at the pointer of that key, and nothing else changes', () => {
    const kinds = new Set<string>();
    fc.assert(
      fc.property(structurallyValidConfig, fc.nat(), fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 1 }), (config, pick, key, value) => {
        const places = closedObjects(config);
        const place = places[pick % places.length];
        fc.pre(!isKnownAt(place.kind, key));
        kinds.add(place.kind);
        const before = keyed(errorsOf(config));
        const after = errorsOf(addKey(config, place, key, value));
        const expected = `CFG_UNKNOWN_KEY ${place.pointer}/${escapeToken(key)}`;
        expect(keyed(after)).toEqual([...before, expected].sort());
      }),
      { numRuns: 600 },
    );
    // Every kind of closed object was reached (outcomes and feedback sit deep, so they are rarer).
    expect([...kinds].sort()).toEqual(Object.keys(CLOSED_OBJECT_KEYS).sort());
  });

  it('in a guardrail object is allowed when it holds an object (check parameters), else CFG_WRONG_TYPE', () => {
    const base = { input_guardrails: [{ id: 'g' }], output_guardrails: [{ id: 'h' }] };
    expect(checkConfig({ ...base, input_guardrails: [{ id: 'g', 'default.wordCount': { maxWords: 10 } }] }).ok).toBe(true);
    const errors = errorsOf({ ...base, output_guardrails: [{ id: 'h', 'default.wordCount': 10 }] });
    expect(errors.map((e) => [e.code, e.pointer])).toEqual([['CFG_WRONG_TYPE', '/output_guardrails/0/default.wordCount']]);
  });
});

// Reference Levenshtein, case-insensitive like the checker's suggestion.
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const d = Array.from({ length: x.length + 1 }, (_, i) => Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
  }
  return d[x.length][y.length];
}

const edit = fc.record({ op: fc.constantFrom('delete', 'insert', 'replace', 'swap'), at: fc.nat(), char: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz_') });
function misspell(key: string, { op, at, char }: { op: string; at: number; char: string }): string {
  const i = at % key.length;
  switch (op) {
    case 'delete': return key.slice(0, i) + key.slice(i + 1);
    case 'insert': return key.slice(0, i) + char + key.slice(i);
    case 'replace': return key.slice(0, i) + char + key.slice(i + 1);
    default: return i + 1 < key.length ? key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2) : key.slice(0, i) + char;
  }
}

/** Renames one known key of a closed object to a typo and checks the hint names the key. */
function misspellingProperty(kindsUnderTest: (kind: ClosedObjectKind) => boolean) {
  return fc.property(structurallyValidConfig, fc.nat(), fc.nat(), edit, (config, pickPlace, pickKey, typoEdit) => {
    const places = closedObjects(config).filter((p) => kindsUnderTest(p.kind));
    fc.pre(places.length > 0);
    const place = places[pickPlace % places.length];
    const known = CLOSED_OBJECT_KEYS[place.kind] as readonly string[];
    const key = known[pickKey % known.length];
    const typo = misspell(key, typoEdit);
    const allowed = Math.min(3, Math.max(1, Math.floor(typo.length / 3)));
    const nearest = known.filter((k) => k !== key).every((k) => distance(typo, k) > distance(typo, key));
    fc.pre(typo.length > 0 && !known.includes(typo) && nearest && distance(typo, key) <= allowed);
    const copy = structuredClone(config);
    const target = valueAtPath(copy, place.path) as Obj;
    const value = Object.hasOwn(target, key) ? target[key] : 1;
    delete target[key];
    target[typo] = value;
    const error = errorsOf(copy).find((e) => e.code === 'CFG_UNKNOWN_KEY' && e.pointer === `${place.pointer}/${escapeToken(typo)}`);
    expect(error, `${typo} at ${place.pointer || '/'}`).toBeDefined();
    expect(error?.hint, `${typo} at ${place.pointer || '/'} (${place.kind})`).toBe(`did you mean "${key}"?`);
  });
}

const OUTCOME_KINDS: readonly ClosedObjectKind[] = ['outcome', 'outcome_with_deny'];

describe('a misspelt known key', () => {
  it('gets a "did you mean" naming the right key (config, strategy, conditions, cache, retry, cb_config, deployments, hooks, checks, feedback)', () => {
    fc.assert(misspellingProperty((kind) => !OUTCOME_KINDS.includes(kind)), { numRuns: 500 });
  });

  // Fails today: in on_fail / on_success (the $defs `outcome` and `outcomeWithDeny`, which Ajv
  // compiles as separate functions) the error's schemaPath is `#/additionalProperties`, so
  // schema-errors.ts looks up the allowed keys of the *root* config and suggests from those.
  it('inside a hook or guardrail on_fail / on_success gets a "did you mean" too', () => {
    fc.assert(misspellingProperty((kind) => OUTCOME_KINDS.includes(kind)), { numRuns: 200 });
  });

  it.each([
    [{ before_request_hooks: [{ id: 'h', on_fail: { denny: true } }] }, '/before_request_hooks/0/on_fail/denny', 'deny'],
    [{ output_guardrails: [{ id: 'g', on_success: { feedbak: {} } }] }, '/output_guardrails/0/on_success/feedbak', 'feedback'],
  ] as Array<[Obj, string, string]>)('%j suggests the outcome key', (config, pointer, key) => {
    const error = errorsOf(config).find((e) => e.pointer === pointer);
    expect(error?.code).toBe('CFG_UNKNOWN_KEY');
    expect(error?.hint).toBe(`did you mean "${key}"?`);
  });
});
