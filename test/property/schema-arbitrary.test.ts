// arbitraryFromSchema on small hand-written schemas, one or two per keyword: every drawn value must be
// valid (checked by an Ajv of the test's own), the draws must show the keyword at work, and exact
// generation must not lean on filters.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { arbitraryFromSchema, type FilterStats, type SchemaArbitraryOptions } from './schema-arbitrary.ts';
import { arrayNesting, createTestAjv, drawValid, keysOf, withSeed } from './schema-arbitrary-harness.ts';

const RUNS = 200;
// Exact generation still filters drawn extra keys that happen to equal a declared key.
const EXACT_REJECTION_RATE = 0.02;

interface KeywordCase {
  readonly name: string;
  readonly schema: Record<string, unknown>;
  readonly schemas?: object[];
  readonly options?: SchemaArbitraryOptions;
  /** Assertions over all drawn values: the keyword visibly shaped them. */
  readonly covers: (values: unknown[]) => void;
  /** Highest share of filter checks that may reject (default EXACT_REJECTION_RATE). */
  readonly maxRejectionRate?: number;
}

function objects(values: unknown[]): Record<string, unknown>[] {
  return values as Record<string, unknown>[];
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function treeDepth(node: unknown): number {
  const children = (node as { children?: unknown[] }).children ?? [];
  return children.length === 0 ? 0 : 1 + Math.max(...children.map(treeDepth));
}

const cases: KeywordCase[] = [
  {
    name: 'type: one type and a union of types',
    schema: { type: ['string', 'integer', 'null', 'boolean'] },
    covers: (vs) => expect(new Set(vs.map(kindOf))).toEqual(new Set(['string', 'integer', 'null', 'boolean'])),
  },
  {
    name: 'properties, required, additionalProperties false, boolean subschemas',
    schema: {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'integer' }, c: true, d: false },
      required: ['a'],
      additionalProperties: false,
    },
    covers: (vs) => {
      for (const v of objects(vs)) expect(['a', 'b', 'c']).toEqual(expect.arrayContaining(keysOf(v)));
      expect(objects(vs).some((v) => 'b' in v)).toBe(true);
      expect(objects(vs).some((v) => !('b' in v))).toBe(true);
    },
  },
  {
    name: 'additionalProperties as a schema adds keys that do not collide',
    schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: { type: 'boolean' } },
    covers: (vs) => expect(objects(vs).some((v) => keysOf(v).length > 1)).toBe(true),
  },
  {
    name: 'additionalProperties true draws declared keys only',
    schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
    covers: (vs) => {
      for (const v of vs) expect(keysOf(v).every((k) => k === 'a')).toBe(true);
    },
  },
  {
    name: 'items, minItems, maxItems, uniqueItems',
    schema: { type: 'array', items: { enum: [1, 2, 3, 4, 5, 6] }, minItems: 2, maxItems: 5, uniqueItems: true },
    options: { maxItems: 5 },
    covers: (vs) => expect(new Set(vs.map((v) => (v as unknown[]).length))).toEqual(new Set([2, 3, 4, 5])),
  },
  {
    name: 'uniqueItems compares objects deeply',
    schema: {
      type: 'array',
      items: { type: 'object', properties: { k: { enum: [1, 2] }, j: { enum: [1, 2] } }, additionalProperties: false },
      uniqueItems: true,
      minItems: 3,
    },
    covers: (vs) => expect(vs.every((v) => (v as unknown[]).length >= 3)).toBe(true),
  },
  {
    name: 'prefixItems then items',
    schema: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: { type: 'boolean' }, minItems: 1 },
    covers: (vs) => expect(vs.some((v) => (v as unknown[]).length > 2)).toBe(true),
  },
  {
    name: 'enum and const, deep values included',
    schema: { type: 'object', properties: { e: { enum: ['a', 1, null, { x: [1] }] }, c: { const: { deep: [1, { y: 2 }] } } }, required: ['e', 'c'] },
    covers: (vs) => expect(new Set(objects(vs).map((v) => JSON.stringify(v.e))).size).toBe(4),
  },
  {
    name: 'minimum, maximum, exclusiveMinimum, exclusiveMaximum on numbers',
    schema: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
    covers: (vs) => expect(vs.some((v) => !Number.isInteger(v))).toBe(true),
  },
  {
    name: 'multipleOf on integers with bounds',
    schema: { type: 'integer', minimum: -50, exclusiveMaximum: 49, multipleOf: 7 },
    covers: (vs) => {
      expect(vs.some((v) => (v as number) < 0)).toBe(true);
      expect(vs.some((v) => (v as number) > 0)).toBe(true);
    },
  },
  {
    name: 'minLength and maxLength',
    schema: { type: 'string', minLength: 3, maxLength: 5 },
    covers: (vs) => expect(new Set(vs.map((v) => [...(v as string)].length))).toEqual(new Set([3, 4, 5])),
  },
  {
    name: 'pattern',
    schema: { type: 'string', pattern: '^[a-z]{2}-[0-9]+$' },
    covers: (vs) => expect(new Set(vs).size).toBeGreaterThan(50),
  },
  {
    name: 'format: uuid, date-time, uri',
    schema: {
      type: 'object',
      properties: {
        id: { type: 'string', format: 'uuid' },
        at: { type: 'string', format: 'date-time' },
        link: { type: 'string', format: 'uri' },
      },
      required: ['id', 'at', 'link'],
    },
    covers: (vs) => expect(new Set(objects(vs).map((v) => v.id)).size).toBeGreaterThan(100),
  },
  {
    name: 'minProperties and maxProperties over undeclared keys',
    schema: { type: 'object', additionalProperties: { type: 'integer' }, minProperties: 2, maxProperties: 3 },
    covers: (vs) => expect(new Set(vs.map((v) => keysOf(v).length))).toEqual(new Set([2, 3])),
  },
  {
    name: 'minProperties over declared keys',
    schema: {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer' }, c: { type: 'integer' }, d: { type: 'integer' } },
      additionalProperties: false,
      minProperties: 3,
    },
    covers: (vs) => expect(vs.some((v) => keysOf(v).length === 4)).toBe(true),
  },
  {
    name: '$ref to local $defs',
    schema: {
      $defs: { positive: { type: 'integer', minimum: 1 }, pair: { type: 'array', items: { $ref: '#/$defs/positive' }, minItems: 2, maxItems: 2 } },
      type: 'object',
      properties: { a: { $ref: '#/$defs/positive' }, p: { $ref: '#/$defs/pair' } },
      required: ['a', 'p'],
    },
    covers: (vs) => expect(objects(vs).every((v) => (v.a as number) >= 1)).toBe(true),
  },
  {
    name: '$ref to other files by relative path, pointer and anchor',
    schema: {
      $id: 'https://t.local/schemas/a.json',
      type: 'object',
      properties: { b: { $ref: 'sub/b.json' }, c: { $ref: 'sub/b.json#/$defs/c' }, d: { $ref: 'sub/b.json#dee' } },
      required: ['b', 'c', 'd'],
      additionalProperties: false,
    },
    schemas: [{
      $id: 'https://t.local/schemas/sub/b.json',
      type: 'string',
      minLength: 2,
      $defs: { c: { enum: ['x', 'y'] }, d: { $anchor: 'dee', type: 'integer', minimum: 10 } },
    }],
    covers: (vs) => expect(new Set(objects(vs).map((v) => v.c))).toEqual(new Set(['x', 'y'])),
  },
  {
    name: 'recursive $ref: optional recursive property, depth bounded by maxDepth',
    schema: {
      type: 'object',
      properties: { value: { type: 'integer' }, children: { type: 'array', items: { $ref: '#' } } },
      required: ['value'],
      additionalProperties: false,
    },
    options: { maxDepth: 3 },
    covers: (vs) => {
      const depths = vs.map(treeDepth);
      expect(Math.max(...depths)).toBe(3);
    },
  },
  {
    name: 'recursive $ref: a branch that terminates is taken past maxDepth',
    schema: {
      $defs: { node: { anyOf: [{ type: 'integer' }, { type: 'array', minItems: 1, maxItems: 2, items: { $ref: '#/$defs/node' } }] } },
      $ref: '#/$defs/node',
    },
    options: { maxDepth: 2 },
    covers: (vs) => {
      // The node entered a second time may not hold an array: its items would be a third re-entry.
      const nesting = vs.map(arrayNesting);
      expect(Math.max(...nesting)).toBe(2);
      expect(nesting.includes(0)).toBe(true);
    },
  },
  {
    name: 'allOf merges its parts',
    schema: {
      allOf: [
        { type: 'object', properties: { a: { type: 'integer', minimum: 0 } }, required: ['a'] },
        { properties: { a: { maximum: 3 }, b: { const: true } }, required: ['b'] },
      ],
    },
    covers: (vs) => expect(new Set(objects(vs).map((v) => v.a))).toEqual(new Set([0, 1, 2, 3])),
  },
  {
    name: 'anyOf picks a branch',
    schema: { anyOf: [{ type: 'string', maxLength: 2 }, { type: 'integer', minimum: 100 }] },
    covers: (vs) => expect(new Set(vs.map(kindOf))).toEqual(new Set(['string', 'integer'])),
  },
  {
    name: 'anyOf of required lists forces a whole key set',
    schema: {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' }, d: { type: 'string' } },
      additionalProperties: false,
      anyOf: [{ required: ['a', 'b'] }, { required: ['c'] }, { required: ['d'] }],
    },
    covers: (vs) => {
      const only = (keys: string[]) => objects(vs).some((v) => keysOf(v).sort().join() === keys.join());
      expect([only(['a', 'b']), only(['c']), only(['d'])]).toEqual([true, true, true]);
    },
  },
  {
    name: 'oneOf excludes values that match another branch',
    schema: { oneOf: [{ type: 'string' }, { type: ['string', 'null'] }] },
    covers: (vs) => expect(new Set(vs)).toEqual(new Set([null])),
  },
  {
    name: 'oneOf with a discriminating const',
    schema: {
      type: 'object',
      oneOf: [
        { properties: { kind: { const: 'a' }, n: { type: 'integer' } }, required: ['kind', 'n'] },
        { properties: { kind: { const: 'b' } }, required: ['kind'] },
      ],
    },
    covers: (vs) => expect(new Set(objects(vs).map((v) => v.kind))).toEqual(new Set(['a', 'b'])),
  },
  {
    name: 'not: required keys become absent keys',
    schema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['b'], not: { required: ['a'] } },
    covers: (vs) => expect(objects(vs).some((v) => 'a' in v)).toBe(false),
  },
  {
    name: 'not: excluded types and values',
    schema: { not: { type: ['string', 'object', 'array'] }, anyOf: [{ type: 'boolean' }, { type: 'integer', not: { enum: [0, 1] }, minimum: 0, maximum: 3 }] },
    covers: (vs) => expect(new Set(vs)).toEqual(new Set([true, false, 2, 3])),
  },
  {
    name: 'not: a leaf keyword left to a filter that rarely rejects',
    schema: { type: 'string', minLength: 1, maxLength: 1, not: { pattern: '^[aeiou]$' } },
    covers: (vs) => expect(new Set(vs).size).toBeGreaterThan(20),
    maxRejectionRate: 0.1,
  },
  {
    name: 'if/then/else: the if is decided first, both ways',
    schema: {
      type: 'object',
      properties: { kind: { enum: ['a', 'b', 'c'] }, x: { type: 'integer' }, y: { type: 'string' } },
      required: ['kind'],
      additionalProperties: false,
      if: { properties: { kind: { const: 'a' } } },
      then: { required: ['x'] },
      else: { required: ['y'], not: { required: ['x'] } },
    },
    covers: (vs) => {
      expect(new Set(objects(vs).map((v) => v.kind))).toEqual(new Set(['a', 'b', 'c']));
      expect(objects(vs).every((v) => (v.kind === 'a') === ('x' in v))).toBe(true);
    },
  },
  {
    name: 'if without then: else applies when if fails',
    schema: { type: 'array', items: { if: { type: 'string' }, else: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } }, minItems: 1 },
    covers: (vs) => {
      const kinds = new Set(vs.flatMap((v) => (v as unknown[]).map(kindOf)));
      expect(kinds).toEqual(new Set(['string', 'object']));
    },
  },
  {
    name: 'dependentRequired',
    schema: {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer' }, c: { type: 'integer' } },
      additionalProperties: false,
      dependentRequired: { a: ['b', 'c'] },
    },
    covers: (vs) => expect(objects(vs).some((v) => 'a' in v)).toBe(true),
  },
  {
    name: 'dependentSchemas',
    schema: {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer' } },
      dependentSchemas: { a: { required: ['b'], properties: { b: { minimum: 10 } } } },
    },
    covers: (vs) => expect(objects(vs).some((v) => 'a' in v)).toBe(true),
  },
  {
    name: 'propertyNames',
    schema: { type: 'object', propertyNames: { pattern: '^[a-z]+$', maxLength: 4 }, additionalProperties: { type: 'integer' }, minProperties: 1 },
    covers: (vs) => expect(vs.every((v) => keysOf(v).length > 0)).toBe(true),
  },
  {
    name: '$data: a required property bounded by a sibling',
    schema: {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 1, maximum: 10 },
        m: { type: 'integer', maximum: 10, exclusiveMinimum: { $data: '1/n' } },
      },
      required: ['n', 'm'],
      additionalProperties: false,
    },
    covers: (vs) => expect(new Set(objects(vs).map((v) => v.n)).size).toBeGreaterThan(5),
  },
  {
    name: '$data: an optional property dropped when its sibling leaves no room',
    schema: {
      type: 'object',
      properties: {
        limit: { type: 'number', minimum: 0, maximum: 1 },
        alert: { type: ['number', 'null'], minimum: 0, exclusiveMaximum: { $data: '1/limit' } },
      },
      required: ['limit'],
    },
    covers: (vs) => expect(objects(vs).some((v) => typeof v.alert === 'number')).toBe(true),
  },
  {
    name: '$data: const copies a sibling',
    schema: {
      type: 'object',
      properties: { a: { type: 'string' }, b: { const: { $data: '1/a' } } },
      required: ['a', 'b'],
    },
    covers: (vs) => expect(objects(vs).every((v) => v.a === v.b)).toBe(true),
  },
  {
    name: '$data: sizes read from siblings',
    schema: {
      type: 'object',
      properties: {
        n: { type: ['integer', 'null'], minimum: 0, maximum: 2 },
        s: { type: ['string', 'boolean'], maxLength: { $data: '1/n' } },
        a: { type: 'array', minItems: { $data: '1/n' } },
      },
      required: ['n', 's'],
    },
    covers: (vs) => {
      expect(new Set(objects(vs).map((v) => v.n))).toEqual(new Set([0, 1, 2, null]));
      expect(objects(vs).some((v) => v.n === null && typeof v.s === 'boolean')).toBe(true);
    },
  },
  {
    name: '$data beyond a sibling: whole values are checked',
    schema: {
      type: 'object',
      properties: {
        limits: { type: 'object', properties: { low: { type: 'integer', minimum: 0, maximum: 10 } }, required: ['low'] },
        x: { type: 'integer', minimum: 0, maximum: 20, exclusiveMinimum: { $data: '1/limits/low' } },
      },
      required: ['limits', 'x'],
    },
    covers: (vs) => expect(objects(vs).every((v) => (v.x as number) > (v.limits as { low: number }).low)).toBe(true),
    maxRejectionRate: 0.5,
  },
];

describe('arbitraryFromSchema on one keyword at a time', () => {
  for (const c of cases) {
    it(c.name, () => {
      const stats: FilterStats = { checks: 0, rejections: 0 };
      const arb = arbitraryFromSchema(c.schema, { ...c.options, schemas: c.schemas, stats });
      const ajv = createTestAjv(c.schemas);
      const { seed, values } = drawValid(arb, ajv.compile(c.schema), RUNS);
      withSeed(seed, () => {
        c.covers(values);
        const rate = stats.checks === 0 ? 0 : stats.rejections / stats.checks;
        expect(rate).toBeLessThanOrEqual(c.maxRejectionRate ?? EXACT_REJECTION_RATE);
      });
    });
  }
});

describe('options', () => {
  const named = {
    $defs: { name: { type: 'string' } },
    type: 'object',
    properties: { a: { $ref: '#/$defs/name' }, b: { $ref: '#/$defs/name' }, c: { type: 'string' } },
    required: ['a', 'b', 'c'],
  };

  it('an override by JSON pointer replaces generation wherever that location is used', () => {
    const arb = arbitraryFromSchema(named, { overrides: { '#/$defs/name': fc.constant('N'), '/properties/c': fc.constant('C') } });
    for (const v of fc.sample(arb, 50)) expect(v).toEqual({ a: 'N', b: 'N', c: 'C' });
  });

  it('an override by $id#pointer reaches into another document', () => {
    const other = { $id: 'https://t.local/o.json', $defs: { id: { type: 'string' } } };
    const root = { $id: 'https://t.local/r.json', type: 'object', properties: { id: { $ref: 'o.json#/$defs/id' } }, required: ['id'] };
    const arb = arbitraryFromSchema(root, { schemas: [other], overrides: { 'https://t.local/o.json#/$defs/id': fc.constant('fixed') } });
    for (const v of fc.sample(arb, 20)) expect(v).toEqual({ id: 'fixed' });
  });

  it('a $ref by file name reaches the document whose $id ends in it, from a schema without $id', () => {
    const target = { $id: 'https://t.local/deep/path/pair.json', type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2 };
    const arb = arbitraryFromSchema({ type: 'object', properties: { p: { $ref: 'pair.json' } }, required: ['p'] }, { schemas: [target] });
    const validate = createTestAjv([target]).getSchema(target.$id);
    for (const v of fc.sample(arb, 50)) expect(validate?.((v as { p: unknown }).p)).toBe(true);
  });

  it('an override naming no schema location is refused', () => {
    expect(() => arbitraryFromSchema(named, { overrides: { '/properties/missing': fc.constant(1) } })).toThrow(/nothing at/);
  });

  it('maxItems caps arrays that have no maxItems of their own', () => {
    const arb = arbitraryFromSchema({ type: 'array', items: { type: 'integer' } }, { maxItems: 2 });
    const lengths = new Set(fc.sample(arb, 200).map((v) => (v as unknown[]).length));
    expect(lengths).toEqual(new Set([0, 1, 2]));
  });

  it('stats count filter checks and rejections', () => {
    const stats: FilterStats = { checks: 0, rejections: 0 };
    const arb = arbitraryFromSchema({ type: 'string', maxLength: 1, not: { const: 'a' } }, { stats });
    fc.sample(arb, 100);
    expect(stats.checks).toBeGreaterThanOrEqual(100);
    expect(stats.rejections).toBeLessThan(stats.checks);
  });
});

describe('schemas without a generable value fail loudly', () => {
  it('an unsatisfiable schema throws when built', () => {
    expect(() => arbitraryFromSchema({ allOf: [{ type: 'string' }, { type: 'integer' }] })).toThrow(/no value/);
  });

  it('recursion that can never terminate throws when built', () => {
    const schema = { $defs: { a: { type: 'array', minItems: 1, items: { $ref: '#/$defs/a' } } }, $ref: '#/$defs/a' };
    expect(() => arbitraryFromSchema(schema)).toThrow(/maxDepth/);
  });

  it('a filter that keeps rejecting throws instead of hanging', () => {
    const arb = arbitraryFromSchema({ type: 'string', not: { pattern: '' } });
    expect(() => fc.sample(arb, 1)).toThrow(/draws in a row rejected/);
  });
});
