// Ajv `$data` between sibling properties (`"exclusiveMinimum": {"$data": "1/n"}`): find which
// properties are bounded by which siblings, and how far a bound property can range on its own, so the
// sibling it reads can be kept inside the range where a valid value still exists.
import { isData, pos, type Constraint } from './schema-arbitrary-constraints.ts';
import {
  child, isSchemaObject, pointerSegments, synthetic, type Located, type SchemaRegistry,
} from './schema-arbitrary-registry.ts';

export const NUMERIC_BOUNDS = ['minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum'] as const;
type NumericBound = (typeof NUMERIC_BOUNDS)[number];

export interface SiblingBound {
  readonly keyword: NumericBound;
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
    for (const keyword of NUMERIC_BOUNDS) {
      const raw = s[keyword];
      const match = isData(raw) ? SIBLING_POINTER.exec(raw.$data) : null;
      if (isData(raw) && match !== null) found.push({ keyword, pointer: raw.$data, sibling: pointerSegments(match[1])[0] });
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
  }
}

/** True when some `$data` in these documents is not a numeric bound read from a sibling. */
export function hasUnsupportedData(documents: readonly unknown[]): boolean {
  const visit = (value: unknown, keyword: string | undefined): boolean => {
    if (Array.isArray(value)) return value.some((item) => visit(item, undefined));
    if (!isSchemaObject(value)) return false;
    if (isData(value)) {
      return !(NUMERIC_BOUNDS as readonly string[]).includes(keyword ?? '') || !SIBLING_POINTER.test(value.$data);
    }
    return Object.entries(value).some(([k, v]) => k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples' && visit(v, k));
  };
  return documents.some((doc) => visit(doc, undefined));
}
