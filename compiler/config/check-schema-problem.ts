// Whether a jsonSchema check's schema is one the check can run, found without compiling it. Ajv's
// compile generates code, and its time grows faster than the schema (1,000 properties: ~1 s): on the
// thread that checks an inline config, a 60 KB header held every request that long, and a fresh Ajv
// per schema added ~50 ms of compiling the draft 2020-12 meta-schema to even a tiny one. So the
// schema is validated against the meta-schema (one shared Ajv: validating stores nothing), its
// patterns are checked for the linear-time engine, and its local `$ref`s are resolved; the compile
// itself happens on the check's own thread (runtime/pipeline/guardrails/checks/json-schema-thread.ts),
// where anything else it refuses makes the check one that could not run.
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { newCheckSchemaAjv, schemaPatternProblem } from './check-schema-ajv.ts';
import { checkPattern, type PatternChecker } from './linear-regex.ts';
import { isPlainObject } from './query.ts';

/** Keywords whose value is one schema, a list of schemas, or a map of names to schemas (draft 2020-12, and the draft-07 ones Ajv still reads). */
const ONE_SCHEMA = new Set(['additionalItems', 'items', 'contains', 'additionalProperties', 'propertyNames', 'not', 'if', 'then', 'else', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema']);
const SCHEMA_LIST = new Set(['items', 'allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_MAP = new Set(['$defs', 'definitions', 'properties', 'patternProperties', 'dependencies', 'dependentSchemas']);

let metaSchema: Ajv2020 | null = null;

/** Every object in a schema position, the root first (boolean schemas hold nothing to check). */
function subschemas(root: Record<string, unknown>): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const schema = pending.pop();
    if (!isPlainObject(schema)) continue;
    found.push(schema);
    for (const [keyword, value] of Object.entries(schema)) {
      if (Array.isArray(value)) {
        if (SCHEMA_LIST.has(keyword)) pending.push(...value);
      } else if (SCHEMA_MAP.has(keyword)) {
        if (isPlainObject(value)) pending.push(...Object.values(value));
      } else if (ONE_SCHEMA.has(keyword)) {
        pending.push(value);
      }
    }
  }
  return found;
}

/** The value a `#/…` JSON pointer names in `root`, or undefined. */
function atPointer(root: unknown, fragment: string): unknown {
  let value = root;
  for (const raw of fragment.slice(2).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(value)) value = /^(0|[1-9][0-9]*)$/.test(token) ? value[Number(token)] : undefined;
    else if (isPlainObject(value) && Object.hasOwn(value, token)) value = value[token];
    else return undefined;
  }
  return value;
}

/** Whether a `#/…` pointer names a schema (an object or a boolean) in `root`, or `#name` an anchor; other references are left to the compile. */
function refResolves(root: Record<string, unknown>, ref: string, anchors: ReadonlySet<unknown>): boolean {
  if (ref.startsWith('#/')) {
    const target = atPointer(root, ref);
    return isPlainObject(target) || typeof target === 'boolean';
  }
  return ref.startsWith('#') ? anchors.has(ref.slice(1)) : true;
}

/** Why `schema` cannot be a jsonSchema check's schema (`ofPattern`: a pattern the linear-time engine refuses), or null. */
export function schemaProblem(schema: Record<string, unknown>, checkOne: PatternChecker = checkPattern): { message: string; ofPattern: boolean } | null {
  metaSchema ??= newCheckSchemaAjv();
  if (metaSchema.validateSchema(schema) !== true) return { message: `schema is invalid: ${metaSchema.errorsText(metaSchema.errors)}`, ofPattern: false };
  const all = subschemas(schema);
  const anchors = new Set<unknown>(all.flatMap((s) => [s.$anchor, s.$dynamicAnchor]));
  // A nested $id starts a resource of its own, against which "#/…" resolves: left to the compile.
  const nestedIds = all.slice(1).some((s) => s.$id !== undefined);
  for (const subschema of all) {
    const patterns = [...(typeof subschema.pattern === 'string' ? [subschema.pattern] : []), ...(isPlainObject(subschema.patternProperties) ? Object.keys(subschema.patternProperties) : [])];
    for (const pattern of patterns) {
      const problem = schemaPatternProblem(pattern, checkOne);
      if (problem !== null) return { message: problem, ofPattern: true };
    }
    for (const ref of [subschema.$ref, subschema.$dynamicRef]) {
      if (typeof ref !== 'string' || ref === '#' || nestedIds) continue;
      if (!refResolves(schema, ref, anchors)) return { message: `the $ref ${JSON.stringify(ref)} names nothing in the schema`, ofPattern: false };
    }
  }
  return null;
}
