// Ajv `$data` between sibling properties (`"exclusiveMinimum": {"$data": "1/n"}`, `"const": {"$data":
// "1/a"}`): find which properties read which siblings, and how far a numerically bounded property can
// range on its own, so the sibling it reads can be kept inside the range where a valid value exists.
import { isData, pos, type Constraint } from './schema-arbitrary-constraints.ts';
import {
  child, isSchemaObject, pointerSegments, synthetic, type Located, type SchemaObject, type SchemaRegistry,
} from './schema-arbitrary-registry.ts';

export const NUMERIC_BOUNDS = ['minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum'] as const;
/** Size keywords, with the instance kinds Ajv fails when their `$data` value is not a number. */
const SIZE_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  minLength: ['string'], maxLength: ['string'], minItems: ['array'], maxItems: ['array'],
  minProperties: ['object'], maxProperties: ['object'], multipleOf: ['number', 'integer'],
};
/** Keywords whose `$data` the generator resolves against the sibling's drawn value. */
const SIBLING_KEYWORDS: readonly string[] = [...NUMERIC_BOUNDS, 'const', ...Object.keys(SIZE_KEYWORDS)];

export interface SiblingBound {
  readonly keyword: string;
  /** The `$data` pointer as written, e.g. `1/n`. */
  readonly pointer: string;
  readonly sibling: string;
}

const SIBLING_POINTER = /^1(\/[^/]*)$/;

/** Schemas applied to the same instance as `loc` (through $ref and the applicators), `loc` included. */
function sameInstance(loc: Located, registry: SchemaRegistry, seen = new Set<string>()): Located[] {
  const s = loc.schema;
  const key = `${loc.doc}#${loc.pointer}${loc.synthetic ?? ''}`;
  if (!isSchemaObject(s) || seen.has(key)) return [];
  seen.add(key);
  const found = [loc];
  if (typeof s.$ref === 'string' && loc.synthetic === undefined) found.push(...sameInstance(registry.resolve(loc, s.$ref), registry, seen));
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
    const list = s[keyword];
    if (Array.isArray(list)) list.forEach((_, i) => found.push(...sameInstance(child(loc, keyword, i), registry, seen)));
  }
  for (const keyword of ['if', 'then', 'else']) if (keyword in s) found.push(...sameInstance(child(loc, keyword), registry, seen));
  return found;
}

function positives(constraints: readonly Constraint[]): Located[] {
  return constraints.flatMap((c) => (c.kind === 'pos' ? [c.loc] : []));
}

export function siblingBounds(constraints: readonly Constraint[], registry: SchemaRegistry): SiblingBound[] {
  const found: SiblingBound[] = [];
  for (const loc of positives(constraints).flatMap((l) => sameInstance(l, registry))) {
    const s = loc.schema;
    if (!isSchemaObject(s)) continue;
    for (const keyword of SIBLING_KEYWORDS) {
      const raw = s[keyword];
      const match = isData(raw) ? SIBLING_POINTER.exec(raw.$data) : null;
      if (isData(raw) && match !== null) {
        found.push({ keyword, pointer: raw.$data, sibling: pointerSegments(match[1])[0] });
      }
    }
  }
  return found;
}

interface StaticRange {
  lo: number;
  hi: number;
  loExclusive: boolean;
  hiExclusive: boolean;
  integer: boolean;
}

/** Literal numeric bounds of the schemas that always apply to a property (branches left out). */
function staticRange(constraints: readonly Constraint[], registry: SchemaRegistry): StaticRange {
  const r: StaticRange = { lo: -Infinity, hi: Infinity, loExclusive: false, hiExclusive: false, integer: false };
  const pending = positives(constraints);
  const seen = new Set<string>();
  while (pending.length > 0) {
    const loc = pending.pop() as Located;
    const s = loc.schema;
    const key = `${loc.doc}#${loc.pointer}${loc.synthetic ?? ''}`;
    if (!isSchemaObject(s) || seen.has(key)) continue;
    seen.add(key);
    if (typeof s.$ref === 'string' && loc.synthetic === undefined) pending.push(registry.resolve(loc, s.$ref));
    if (Array.isArray(s.allOf)) s.allOf.forEach((_, i) => pending.push(child(loc, 'allOf', i)));
    const types = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? s.type : undefined;
    if (types !== undefined && types.includes('integer') && !types.includes('number')) r.integer = true;
    for (const keyword of NUMERIC_BOUNDS) {
      const v = s[keyword];
      if (typeof v !== 'number') continue;
      const exclusive = keyword.startsWith('exclusive');
      if (keyword.endsWith('inimum')) {
        if (v > r.lo || (v === r.lo && exclusive)) [r.lo, r.loExclusive] = [v, exclusive];
      } else if (v < r.hi || (v === r.hi && exclusive)) [r.hi, r.hiExclusive] = [v, exclusive];
    }
  }
  return r;
}

/**
 * A bound on the sibling that leaves the bounded property some valid value. Needed only when the
 * bounded property must be present: an optional one is simply left out when its range is empty.
 */
export function siblingRestriction(bound: SiblingBound, bounded: readonly Constraint[], registry: SchemaRegistry): Constraint | undefined {
  const r = staticRange(bounded, registry);
  const intHi = r.hiExclusive ? Math.ceil(r.hi) - 1 : Math.floor(r.hi);
  const intLo = r.loExclusive ? Math.floor(r.lo) + 1 : Math.ceil(r.lo);
  const below = (limit: number, exclusive: boolean) => synthetic({ [exclusive ? 'exclusiveMaximum' : 'maximum']: limit });
  const above = (limit: number, exclusive: boolean) => synthetic({ [exclusive ? 'exclusiveMinimum' : 'minimum']: limit });
  switch (bound.keyword) {
    case 'exclusiveMinimum': // bounded > sibling
      if (!Number.isFinite(r.hi)) return undefined;
      return pos(below(r.integer ? intHi : r.hi, true));
    case 'minimum': // bounded >= sibling
      if (!Number.isFinite(r.hi)) return undefined;
      return pos(r.integer ? below(intHi, false) : below(r.hi, r.hiExclusive));
    case 'exclusiveMaximum': // bounded < sibling
      if (!Number.isFinite(r.lo)) return undefined;
      return pos(above(r.integer ? intLo : r.lo, true));
    case 'maximum': // bounded <= sibling
      if (!Number.isFinite(r.lo)) return undefined;
      return pos(r.integer ? above(intLo, false) : above(r.lo, r.loExclusive));
    default: // const and sizes: an optional property is dropped, a required one rarely rejected
      return undefined;
  }
}

/**
 * `schema` with its size keywords' `$data` replaced by the bound values (dropped when the sibling is
 * absent), and the instance kinds that no value can satisfy because a bound value is not a number.
 */
export function bindSizes(schema: SchemaObject, bindings: ReadonlyMap<string, unknown>): { schema: SchemaObject; blocked: string[] } {
  const out: SchemaObject = { ...schema };
  const blocked: string[] = [];
  for (const [keyword, kinds] of Object.entries(SIZE_KEYWORDS)) {
    const raw = schema[keyword];
    if (!isData(raw) || !bindings.has(raw.$data)) continue;
    const bound = bindings.get(raw.$data);
    delete out[keyword];
    if (typeof bound === 'number') out[keyword] = bound;
    else if (bound !== undefined) blocked.push(...kinds);
  }
  return { schema: out, blocked };
}

/** True when some `$data` in these documents is not a bound, size or const read from a sibling. */
export function hasUnsupportedData(documents: readonly unknown[]): boolean {
  const visit = (value: unknown, keyword: string | undefined): boolean => {
    if (Array.isArray(value)) return value.some((item) => visit(item, undefined));
    if (!isSchemaObject(value)) return false;
    if (isData(value)) {
      return !SIBLING_KEYWORDS.includes(keyword ?? '') || !SIBLING_POINTER.test(value.$data);
    }
    return Object.entries(value).some(([k, v]) => k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples' && visit(v, k));
  };
  return documents.some((doc) => visit(doc, undefined));
}
