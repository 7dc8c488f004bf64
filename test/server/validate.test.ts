// Request validation: first-error pointers and messages, and query coercion that converts a value
// only where the schema asked for another type.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { GatewayError } from '../../runtime/core/errors.ts';
import { describeFirstError, type GeneratedValidator, parseQuery, validateBody, validateQuery, ValidatorRegistry } from '../../runtime/core/validate.ts';
import * as generated from '../../generated/validators.js';

const ajv = new Ajv2020({ allowUnionTypes: true });
const compile = (schema: object) => ajv.compile(schema) as unknown as GeneratedValidator;

const listQuery = compile({
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 0 },
    ratio: { type: ['number', 'null'] },
    strict: { type: 'boolean' },
    after: { type: 'string' },
    include: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
    ids: { type: 'array', items: { type: 'integer' } },
  },
});

function rejection(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error('expected a GatewayError');
}

describe('validateQuery', () => {
  it('coerces integers, numbers, booleans and lone array values where the schema wants them', () => {
    const query = parseQuery('limit=10&ratio=0.5&strict=true&after=42&include=a&ids=1&ids=2');
    expect(validateQuery(listQuery, query)).toEqual({ limit: 10, ratio: 0.5, strict: true, after: '42', include: ['a'], ids: [1, 2] });
    expect(validateQuery(listQuery, parseQuery('include[]=b'))).toEqual({ include: ['b'] });
    expect(validateQuery(listQuery, {})).toEqual({});
  });

  it('answers 400 invalid_query with the pointer when coercion cannot help', () => {
    const cases: Array<[string, string]> = [
      ['limit=ten', '/limit'],
      ['limit=-1', '/limit'],
      ['limit=1e3', '/limit'],
      ['strict=yes', '/strict'],
      ['include=c', '/include/0'],
      ['ids=1&ids=x', '/ids/1'],
      ['other=1', '/other'],
      ['limit=99999999999999999999', '/limit'],
    ];
    for (const [raw, pointer] of cases) {
      const err = rejection(() => validateQuery(listQuery, parseQuery(raw)));
      expect(err.code, raw).toBe('invalid_query');
      expect(err.param, raw).toBe(pointer);
      expect(err.message).toContain(pointer);
    }
  });

  it('says a one-valued parameter was given more than once (or as a list) rather than that it has the wrong type', () => {
    for (const [raw, said] of [['limit=1&limit=2', 'more than once'], ['after=a&after=b&after=c', 'more than once'], ['limit[]=1', 'as a list (with [])']]) {
      const err = rejection(() => validateQuery(listQuery, parseQuery(raw)));
      expect(err.message, raw).toMatch(new RegExp(`^Invalid query string: /\\w+ takes one value, and it is given ${said.replace(/[()[\]]/g, '\\$&')}\\.$`));
    }
    // A list parameter may repeat; an item of the wrong type is named by its own pointer.
    expect(rejection(() => validateQuery(listQuery, parseQuery('ids=1&ids=x'))).message).toContain('/ids/1 must be integer');
  });

  test.prop([fc.dictionary(fc.constantFrom('limit', 'ratio', 'strict', 'after', 'include', 'ids', 'x'), fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 })))], {
    numRuns: 300,
  })('either returns a value the schema accepts or throws invalid_query, and never loops', (query) => {
    try {
      const result = validateQuery(listQuery, query);
      expect(listQuery(result)).toBe(true);
    } catch (err) {
      expect(err).toBeInstanceOf(GatewayError);
      expect((err as GatewayError).code).toBe('invalid_query');
    }
  });

  it('works with the generated query validators', () => {
    const registry = new ValidatorRegistry(generated);
    expect(validateQuery(registry.get('validateFineTuningJobListQuery'), parseQuery('limit=3'))).toEqual({ limit: 3 });
  });
});

describe('validateBody and error descriptions', () => {
  const body = compile({
    type: 'object',
    required: ['model'],
    additionalProperties: false,
    properties: { model: { type: 'string' }, 'a/b': { enum: ['x', 'y'] }, n: { type: 'integer', maximum: 4 } },
  });

  it('points at the missing property, the extra property and the failing value', () => {
    expect(rejection(() => validateBody(body, {})).param).toBe('/model');
    expect(rejection(() => validateBody(body, { model: 'm', extra: 1 })).param).toBe('/extra');
    const wrongEnum = rejection(() => validateBody(body, { model: 'm', 'a/b': 'z' }));
    expect(wrongEnum.param).toBe('/a~1b');
    expect(wrongEnum.message).toBe('Invalid request body: /a~1b must be one of "x", "y".');
    const tooBig = rejection(() => validateBody(body, { model: 'm', n: 9 }));
    expect(tooBig).toMatchObject({ code: 'invalid_request_body', param: '/n', message: 'Invalid request body: /n must be <= 4.' });
    expect(rejection(() => validateBody(body, [])).param).toBe('');
    expect(() => validateBody(body, { model: 'm' })).not.toThrow();
  });

  it('inside anyOf, names the alternative that got furthest into the value, not the first alternative', () => {
    const either = compile({ type: 'object', properties: { input: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'object', required: ['role'], properties: { role: { type: 'string' } } } }] } } });
    expect(rejection(() => validateBody(either, { input: [null] }))).toMatchObject({ param: '/input/0', message: 'Invalid request body: /input/0 must be object.' });
    expect(rejection(() => validateBody(either, { input: [{}] }))).toMatchObject({ param: '/input/0/role', message: 'Invalid request body: /input/0/role is required.' });
    // Nothing to choose between: the first alternative's type.
    expect(rejection(() => validateBody(either, { input: 5 })).param).toBe('/input');
    // The real Responses validator: an item of the input list, not "/input must be string".
    expect(rejection(() => validateBody(generated.validateResponseCreate as GeneratedValidator, { model: 'm', input: [{ role: 'user', content: [null] }] })).param).toBe('/input/0/content/0');
  });

  it('names the one value a const allows', () => {
    const fixed = compile({ type: 'object', properties: { type: { const: 'ephemeral' } } });
    expect(rejection(() => validateBody(fixed, { type: 'persistent' }))).toMatchObject({ param: '/type', message: 'Invalid request body: /type must be "ephemeral".' });
  });

  it('describes an empty error list without failing', () => {
    expect(describeFirstError(null)).toEqual({ pointer: '', message: 'the value is not valid.' });
  });

  it('knows the generated validators by export name and reports unknown ones', () => {
    const registry = new ValidatorRegistry(generated);
    expect(registry.get('validateCompletionCreate')({ model: 'm', prompt: 'p' })).toBe(true);
    expect(() => registry.get('validateNope')).toThrow(/validateNope/);
  });
});
