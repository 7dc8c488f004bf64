// Reduces a bundled schema to what a TypeScript type can express. Key-set rules (anyOf of `required`
// lists) and if/then guards constrain values, not shapes; json-schema-to-typescript would turn them
// into `{ [k: string]: unknown }` intersections that erase every property type.
import type { JsonObject } from './schema-files.ts';

const VALUE_ONLY_KEYWORDS = new Set(['if', 'then', 'else', 'not', 'dependentRequired', 'dependentSchemas']);
const ANNOTATIONS = new Set(['title', 'description', '$comment', 'default', 'examples', 'required']);
const COMBINATORS = ['allOf', 'anyOf', 'oneOf'];
const NAME_MAPS = new Set(['properties', '$defs', 'patternProperties']);
const LITERALS = new Set(['const', 'enum', 'default', 'examples']);

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function saysNothingAboutShape(schema: unknown): boolean {
  return isObject(schema) && Object.keys(schema).every((key) => ANNOTATIONS.has(key));
}

export function typeShape(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(typeShape);
  if (!isObject(node)) return node;
  // A `$ref` with only annotations beside it would be declared again under a numbered name.
  if (typeof node.$ref === 'string' && Object.keys(node).every((key) => key === '$ref' || ANNOTATIONS.has(key))) {
    return { $ref: node.$ref };
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (VALUE_ONLY_KEYWORDS.has(key)) continue;
    if (LITERALS.has(key)) out[key] = value;
    else if (NAME_MAPS.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, typeShape(schema)]));
    } else out[key] = typeShape(value);
  }
  for (const key of COMBINATORS) {
    const members = out[key];
    if (!Array.isArray(members)) continue;
    const kept = members.filter((member) => !saysNothingAboutShape(member));
    if (kept.length === 0) delete out[key];
    else out[key] = kept;
  }
  return out;
}
