// A jsonSchema check's schema is judged without compiling it (compiling is the check thread's work):
// the meta-schema, the patterns and the local $refs. On every schema here, the verdict agrees with
// compiling it, except where a schema compiles and the linear-time engine cannot run its pattern.
import { describe, expect, it } from 'vitest';
import { newCheckSchemaAjv } from '../../compiler/config/check-schema-ajv.ts';
import { schemaProblem } from '../../compiler/config/check-schema-problem.ts';

const compiles = (schema: Record<string, unknown>): boolean => {
  try {
    newCheckSchemaAjv().compile(schema);
    return true;
  } catch {
    return false;
  }
};

const SCHEMAS: Array<[Record<string, unknown>, RegExp | null]> = [
  [{ type: 'object', required: ['answer'] }, null],
  [{ type: 'objekt' }, /^schema is invalid: /],
  [{ minLength: -1 }, /^schema is invalid: /],
  [{ properties: { a: { type: 'strin' } } }, /^schema is invalid: /],
  [{ pattern: '^[a-z]+$' }, null],
  [{ properties: { a: { pattern: '(a)\\1' } } }, /^the pattern "\(a\)\\\\1" cannot run on the linear-time engine/],
  [{ patternProperties: { '^x(?=y)': {} } }, /^the pattern "\^x\(\?=y\)" cannot run/],
  [{ items: { pattern: '[' } }, /^schema is invalid: |^the pattern "\[" is not valid/],
  [{ $defs: { n: { type: 'number' } }, properties: { a: { $ref: '#/$defs/n' } } }, null],
  [{ $defs: { n: { type: 'number' } }, properties: { a: { $ref: '#/$defs/m' } } }, /^the \$ref "#\/\$defs\/m" names nothing in the schema$/],
  [{ $defs: { 'a/b': { type: 'number' } }, $ref: '#/$defs/a~1b' }, null],
  [{ $defs: { n: { oneOf: [{ properties: { a: { $ref: '#/$defs/n' } } }, { required: ['b'] }] } }, $ref: '#/$defs/n' }, null],
  [{ $defs: { n: { $anchor: 'num', type: 'number' } }, $ref: '#num' }, null],
  [{ $ref: '#nowhere' }, /names nothing/],
  [{ $ref: '#' , type: 'object' }, null],
  [{ prefixItems: [{ type: 'string' }, { $ref: '#/prefixItems/0' }] }, null],
  [{ prefixItems: [{ type: 'string' }], items: { $ref: '#/prefixItems/1' } }, /names nothing/],
];

describe('schemaProblem', () => {
  it.each(SCHEMAS)('%j', (schema, problem) => {
    const found = schemaProblem(schema);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toEqual({ message: expect.stringMatching(problem), ofPattern: found!.message.startsWith('the pattern') });
  });

  it('says which problems are patterns the linear-time engine refuses', () => {
    expect(schemaProblem({ pattern: '(a)\\1' })?.ofPattern).toBe(true);
    expect(schemaProblem({ type: 'objekt' })?.ofPattern).toBe(false);
    expect(schemaProblem({ $ref: '#nowhere' })?.ofPattern).toBe(false);
  });

  it('agrees with compiling the schema, but for patterns only the linear-time engine refuses', () => {
    for (const [schema, problem] of SCHEMAS) {
      const byPattern = problem !== null && /^\^the pattern/.test(problem.source);
      if (!byPattern) expect(schemaProblem(schema) === null, JSON.stringify(schema)).toBe(compiles(schema));
    }
  });

  it('judges a large schema without compiling it: a thousand properties in milliseconds, where compiling took about a second', () => {
    const properties = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`p${i}`, { type: 'string', minLength: 1 }]));
    schemaProblem({ type: 'object' });
    const started = performance.now();
    expect(schemaProblem({ type: 'object', properties })).toBeNull();
    expect(performance.now() - started).toBeLessThan(500);
  });
});
