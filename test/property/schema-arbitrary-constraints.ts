// The generator's working form of a schema node: a conjunction of constraints on one instance.
// Disjunctive keywords (anyOf, oneOf, if/then/else, not, dependentSchemas) are turned into explicit
// alternatives, each a list of constraints to add, so a branch is chosen before anything is generated.
import {
  child, isSchemaObject, locationKey, synthetic, type Located, type SchemaObject, type SchemaRegistry,
} from './schema-arbitrary-registry.ts';

export type Constraint =
  /** The instance must satisfy `loc`; keywords in `done` were already turned into other constraints. */
  | { readonly kind: 'pos'; readonly loc: Located; readonly done: readonly string[] }
  /** The instance must not satisfy `loc`; a residual negation is checked, not decomposed. */
  | { readonly kind: 'neg'; readonly loc: Located; readonly residual: boolean }
  /** If the instance is an object holding `key`, that value must satisfy `inner`. */
  | { readonly kind: 'prop'; readonly key: string; readonly inner: Constraint };

export type Alternatives = Constraint[][];

export function pos(loc: Located, done: readonly string[] = []): Constraint {
  return { kind: 'pos', loc, done };
}

export function neg(loc: Located, residual = false): Constraint {
  return { kind: 'neg', loc, residual };
}

export function prop(key: string, inner: Constraint): Constraint {
  return { kind: 'prop', key, inner };
}

export function constraintKey(c: Constraint): string {
  switch (c.kind) {
    case 'pos':
      return `+${locationKey(c.loc)}${c.done.length > 0 ? `!${[...c.done].sort().join(',')}` : ''}`;
    case 'neg':
      return `-${c.residual ? 'r' : ''}${locationKey(c.loc)}`;
    case 'prop':
      return `.${JSON.stringify(c.key)}${constraintKey(c.inner)}`;
  }
}

export function isDone(c: Constraint & { kind: 'pos' }, keyword: string): boolean {
  return c.done.includes(keyword);
}

export function markDone(c: Constraint & { kind: 'pos' }, keyword: string): Constraint & { kind: 'pos' } {
  return { kind: 'pos', loc: c.loc, done: [...c.done, keyword] };
}

export const ANNOTATIONS = new Set([
  '$schema', '$id', '$comment', '$anchor', '$dynamicAnchor', '$defs', 'definitions', '$vocabulary',
  'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly',
  'contentEncoding', 'contentMediaType', 'discriminator',
]);

/** Keywords that assert on one instance type, with the type they assert on (null: every type). */
export const LEAF_KEYWORD_TYPES: Readonly<Record<string, string | null>> = {
  const: null, enum: null,
  minimum: 'number', maximum: 'number', exclusiveMinimum: 'number', exclusiveMaximum: 'number', multipleOf: 'number',
  minLength: 'string', maxLength: 'string', pattern: 'string', format: 'string',
  minItems: 'array', maxItems: 'array', uniqueItems: 'array',
  minProperties: 'object', maxProperties: 'object',
};

export const ALL_TYPES = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'] as const;

// Negating these would need a generator for "some item / some key fails": checked instead.
const OPAQUE_UNDER_NEGATION = new Set([
  'additionalProperties', 'patternProperties', 'propertyNames', 'items', 'prefixItems', 'contains',
  'minContains', 'maxContains', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems',
  '$dynamicRef', '$recursiveRef', 'oneOf',
]);

export function isData(value: unknown): value is { $data: string } {
  return isSchemaObject(value) && typeof value.$data === 'string';
}

function typeList(schema: SchemaObject): string[] | undefined {
  const type = schema.type;
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : undefined;
}

function absent(key: string): Constraint {
  return pos(synthetic({ type: 'object', properties: { [key]: false } }));
}

function present(key: string): Constraint {
  return pos(synthetic({ type: 'object', required: [key] }));
}

function listOf(schema: SchemaObject, keyword: string): unknown[] {
  const value = schema[keyword];
  return Array.isArray(value) ? value : [];
}

function negateType(types: string[]): Alternatives {
  const listed = new Set(types);
  // Fractional numbers, the part of "number" outside "integer", get their own alternative below.
  const complement = ALL_TYPES.filter((t) => t !== 'integer' && !listed.has(t) && !(t === 'number' && listed.has('integer')));
  const alternatives: Alternatives = [];
  if (complement.length > 0) alternatives.push([pos(synthetic({ type: complement }))]);
  // "not an integer" still admits fractional numbers.
  if (listed.has('integer') && !listed.has('number')) {
    alternatives.push([pos(synthetic({ type: 'number' })), neg(synthetic({ type: 'integer' }), true)]);
  }
  return alternatives;
}

/**
 * The instance fails `loc`: one alternative per way of failing it (De Morgan over its keywords).
 * Keywords whose failure cannot be generated directly fall back to one residual, checked negation.
 */
export function negate(loc: Located, registry: SchemaRegistry): Alternatives {
  const schema = loc.schema;
  if (schema === true) return [];
  if (schema === false) return [[]];
  const keywords = Object.keys(schema).filter((k) => !ANNOTATIONS.has(k));
  const whole: Alternatives = [[neg(loc, true)]];
  if (keywords.some((k) => OPAQUE_UNDER_NEGATION.has(k) || (k in LEAF_KEYWORD_TYPES && isData(schema[k])))) return whole;
  const alternatives: Alternatives = [];
  const types = typeList(schema);
  if (types !== undefined) alternatives.push(...negateType(types));
  if (typeof schema.$ref === 'string') {
    const target = registry.resolve(loc, schema.$ref);
    if (registry.isRecursive(target)) return whole;
    alternatives.push([neg(target)]);
  }
  listOf(schema, 'allOf').forEach((_, i) => alternatives.push([neg(child(loc, 'allOf', i))]));
  if (Array.isArray(schema.anyOf)) alternatives.push(schema.anyOf.map((_, i) => neg(child(loc, 'anyOf', i))));
  if ('not' in schema) alternatives.push([pos(child(loc, 'not'))]);
  if ('if' in schema) {
    alternatives.push([pos(child(loc, 'if')), neg(child(loc, 'then'))]);
    alternatives.push([neg(child(loc, 'if')), neg(child(loc, 'else'))]);
  }
  for (const key of listOf(schema, 'required')) if (typeof key === 'string') alternatives.push([absent(key)]);
  if (isSchemaObject(schema.properties)) {
    for (const key of Object.keys(schema.properties)) {
      alternatives.push([present(key), prop(key, neg(child(loc, 'properties', key)))]);
    }
  }
  if (isSchemaObject(schema.dependentRequired)) {
    for (const [key, deps] of Object.entries(schema.dependentRequired)) {
      for (const dep of Array.isArray(deps) ? deps : []) {
        alternatives.push([pos(synthetic({ type: 'object', required: [key], properties: { [dep]: false } }))]);
      }
    }
  }
  const leaf = keywords.filter((k) => k in LEAF_KEYWORD_TYPES);
  if (leaf.length > 0) {
    const part = Object.fromEntries(leaf.map((k) => [k, schema[k]]));
    const applies = leaf.map((k) => LEAF_KEYWORD_TYPES[k]);
    const restrict = applies.includes(null) ? [] : [pos(synthetic({ type: [...new Set(applies)] }))];
    alternatives.push([neg(synthetic(part), true), ...restrict]);
  }
  return alternatives;
}

export interface Branching {
  /** The constraint with the branching keyword marked as handled; absent when nothing is left of it. */
  readonly replacement?: Constraint;
  readonly alternatives: Alternatives;
}

/** The first disjunction still open in `c`, or undefined when `c` is purely conjunctive now. */
export function branchingOf(c: Constraint, registry: SchemaRegistry): Branching | undefined {
  if (c.kind === 'neg') return c.residual ? undefined : { alternatives: negate(c.loc, registry) };
  if (c.kind !== 'pos' || !isSchemaObject(c.loc.schema)) return undefined;
  const schema = c.loc.schema;
  const loc = c.loc;
  if (Array.isArray(schema.anyOf) && !isDone(c, 'anyOf')) {
    return { replacement: markDone(c, 'anyOf'), alternatives: schema.anyOf.map((_, i) => [pos(child(loc, 'anyOf', i))]) };
  }
  if (Array.isArray(schema.oneOf) && !isDone(c, 'oneOf')) {
    const count = schema.oneOf.length;
    const alternatives = schema.oneOf.map((_, i) => [
      pos(child(loc, 'oneOf', i)),
      ...Array.from({ length: count }, (_, j) => j).filter((j) => j !== i).map((j) => neg(child(loc, 'oneOf', j))),
    ]);
    return { replacement: markDone(c, 'oneOf'), alternatives };
  }
  if ('not' in schema && !isDone(c, 'not')) {
    return { replacement: markDone(c, 'not'), alternatives: [[neg(child(loc, 'not'))]] };
  }
  if ('if' in schema && !isDone(c, 'if')) {
    // Decide first whether `if` holds, then generate `if`+`then`, or not-`if`+`else`.
    return {
      replacement: markDone(c, 'if'),
      alternatives: [
        [pos(child(loc, 'if')), pos(child(loc, 'then'))],
        [neg(child(loc, 'if')), pos(child(loc, 'else'))],
      ],
    };
  }
  if (isSchemaObject(schema.dependentSchemas)) {
    const key = Object.keys(schema.dependentSchemas).find((k) => !isDone(c, `dependentSchemas/${k}`));
    if (key !== undefined) {
      return {
        replacement: markDone(c, `dependentSchemas/${key}`),
        alternatives: [[absent(key)], [present(key), pos(child(loc, 'dependentSchemas', key))]],
      };
    }
  }
  return undefined;
}
