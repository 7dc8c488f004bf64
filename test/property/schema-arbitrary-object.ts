// Objects: which keys may appear (properties, patternProperties, additionalProperties, propertyNames,
// constraints from chosen branches), which must (required, dependentRequired, minProperties), and
// values, with `$data`-bounded properties drawn after the siblings they read.
import fc from 'fast-check';
import { pos, type Constraint } from './schema-arbitrary-constraints.ts';
import { siblingBounds, siblingRestriction, type SiblingBound } from './schema-arbitrary-data.ts';
import { REJECT, type BuildHost, type Ctx } from './schema-arbitrary-host.ts';
import type { Leaf } from './schema-arbitrary-leaves.ts';
import { child, isSchemaObject, synthetic, type Located, type SchemaObject } from './schema-arbitrary-registry.ts';

type Value = Map<string, unknown>;

/** Extra keys drawn for a free-form object or one whose additionalProperties is a schema. */
const MAX_EXTRA_KEYS = 3;
const FEW_OPTIONAL_KEYS = 4;

const regexCache = new Map<string, RegExp>();
function regex(pattern: string): RegExp {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    re = new RegExp(pattern, 'u');
    regexCache.set(pattern, re);
  }
  return re;
}

function schemaOf(m: Located): SchemaObject {
  return m.schema as SchemaObject;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function matchingPatterns(s: SchemaObject, key: string): string[] {
  return isSchemaObject(s.patternProperties) ? Object.keys(s.patternProperties).filter((p) => regex(p).test(key)) : [];
}

/** What the value under `key` must satisfy, per member: its property, its patterns, or its additionalProperties. */
function keyConstraints(members: readonly Located[], props: readonly (Constraint & { kind: 'prop' })[], key: string): Constraint[] {
  const found: Constraint[] = [];
  for (const m of members) {
    const s = schemaOf(m);
    const patterns = matchingPatterns(s, key);
    if (isSchemaObject(s.properties) && Object.hasOwn(s.properties, key)) found.push(pos(child(m, 'properties', key)));
    patterns.forEach((p) => found.push(pos(child(m, 'patternProperties', p))));
    const declared = (isSchemaObject(s.properties) && Object.hasOwn(s.properties, key)) || patterns.length > 0;
    if (!declared && 'additionalProperties' in s) found.push(pos(child(m, 'additionalProperties')));
  }
  for (const p of props) if (p.key === key) found.push(p.inner);
  return found;
}

function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  // Assigning "__proto__" would set the prototype; defining it keeps an ordinary own property.
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/** Declared keys in schema order, then extra keys in drawing order. */
function toObject(order: readonly string[], value: Value): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of order) if (value.has(k)) setOwn(out, k, value.get(k));
  for (const [k, v] of value) if (!Object.hasOwn(out, k)) setOwn(out, k, v);
  return out;
}

export function objectLeaf(
  host: BuildHost,
  members: readonly Located[],
  props: readonly (Constraint & { kind: 'prop' })[],
  ctx: Ctx,
): Leaf | null {
  const { registry, checker } = host;
  const schemas = members.map(schemaOf);
  const dependentRequired = new Map<string, Set<string>>();
  for (const s of schemas) {
    if (!isSchemaObject(s.dependentRequired)) continue;
    for (const [k, deps] of Object.entries(s.dependentRequired)) {
      const set = dependentRequired.get(k) ?? new Set<string>();
      stringList(deps).forEach((d) => set.add(d));
      dependentRequired.set(k, set);
    }
  }
  const declared: string[] = [];
  const declare = (k: string) => { if (!declared.includes(k)) declared.push(k); };
  for (const s of schemas) if (isSchemaObject(s.properties)) Object.keys(s.properties).forEach(declare);
  for (const s of schemas) stringList(s.required).forEach(declare);
  for (const [k, deps] of dependentRequired) { declare(k); deps.forEach(declare); }
  props.forEach((p) => declare(p.key));

  const nameRules = members.filter((m) => 'propertyNames' in schemaOf(m)).map((m) => child(m, 'propertyNames'));
  const constraints = new Map<string, Constraint[]>();
  const arbs = new Map<string, fc.Arbitrary<unknown> | null>();
  for (const key of declared) {
    const cons = keyConstraints(members, props, key);
    constraints.set(key, cons);
    const named = nameRules.every((rule) => checker.matches(rule, key));
    arbs.set(key, named ? host.build(cons, ctx) : null);
  }

  const closure = (start: Iterable<string>): Set<string> => {
    const out = new Set<string>();
    const pending = [...start];
    while (pending.length > 0) {
      const k = pending.pop() as string;
      if (out.has(k)) continue;
      out.add(k);
      pending.push(...(dependentRequired.get(k) ?? []));
    }
    return out;
  };
  const required = new Set(schemas.flatMap((s) => stringList(s.required)));
  const forced = closure(required);
  const available = (k: string) => arbs.get(k) !== null && [...closure([k])].every((d) => arbs.get(d) !== null);
  if (![...forced].every(available)) return null;

  // A present property bounded by a sibling through `$data` needs that sibling to leave it room.
  const bounds = new Map<string, SiblingBound[]>();
  for (const key of declared) {
    const found = siblingBounds(constraints.get(key) ?? [], registry).filter((b) => b.sibling !== key && declared.includes(b.sibling));
    if (found.length > 0) bounds.set(key, found);
  }
  for (const [key, found] of bounds) {
    if (!forced.has(key)) continue;
    for (const b of found) {
      const restriction = siblingRestriction(b, constraints.get(key) ?? [], registry);
      if (restriction === undefined || arbs.get(b.sibling) === null) continue;
      const cons = [...(constraints.get(b.sibling) ?? []), restriction];
      constraints.set(b.sibling, cons);
      arbs.set(b.sibling, host.build(cons, ctx));
      if (forced.has(b.sibling) && arbs.get(b.sibling) === null) return null;
    }
  }

  let minProperties = 0;
  let maxProperties = Infinity;
  for (const s of schemas) {
    if (typeof s.minProperties === 'number') minProperties = Math.max(minProperties, s.minProperties);
    if (typeof s.maxProperties === 'number') maxProperties = Math.min(maxProperties, s.maxProperties);
  }
  if (forced.size > maxProperties) return null;

  const extras = extraEntries(host, members, nameRules, declared, ctx);
  // `additionalProperties: true` beside declared properties draws only those; a schema, or a
  // free-form object, also gets a few keys of its own.
  const wantExtras = extras !== null && (schemas.some((s) => isSchemaObject(s.additionalProperties)) || declared.length === 0);
  const optional = declared.filter((k) => !forced.has(k) && available(k));
  const dependents = declared.filter((k) => bounds.has(k));

  const chooseKeys = (picked: readonly string[]): Set<string> => {
    const keys = new Set(forced);
    const tryAdd = (k: string) => {
      const grown = new Set([...keys, ...closure([k])]);
      if (grown.size <= maxProperties) grown.forEach((g) => keys.add(g));
    };
    picked.forEach(tryAdd);
    for (const k of optional) if (keys.size < minProperties) tryAdd(k);
    return keys;
  };

  const addDependents = (value: Value, remaining: readonly string[]): fc.Arbitrary<Value | typeof REJECT> => {
    const [key, ...rest] = remaining;
    if (key === undefined) return fc.constant(value);
    if (!value.has(key)) return addDependents(value, rest);
    const bindings = new Map((bounds.get(key) ?? []).map((b) => [b.pointer, value.get(b.sibling)]));
    const arb = host.build(constraints.get(key) ?? [], ctx, bindings);
    if (arb === null) {
      if (forced.has(key)) return fc.constant(REJECT);
      const without = new Map(value);
      without.delete(key);
      return addDependents(without, rest);
    }
    return arb.chain((v) => addDependents(new Map(value).set(key, v), rest));
  };

  const extraArb = (count: { min: number; max: number }, taken: ReadonlySet<string>) =>
    extras === null || count.max <= 0
      ? fc.constant([] as [string, unknown][])
      : fc.uniqueArray(fc.tuple(extras.name.filter((n) => !taken.has(n)), extras.value), {
          minLength: count.min, maxLength: count.max, selector: (e) => e[0],
        });

  const arb = fc
    .tuple(optionalKeys(optional), extraArb({ min: 0, max: wantExtras ? MAX_EXTRA_KEYS : 0 }, new Set()))
    .chain(([picked, drawnExtras]) => {
      const keys = chooseKeys(picked);
      const extraRoom = Math.max(0, maxProperties - keys.size);
      const kept = drawnExtras.slice(0, extraRoom);
      const missing = minProperties - keys.size - kept.length;
      if (missing > 0 && extras === null) return fc.constant(REJECT);
      const chosen = declared.filter((k) => keys.has(k));
      const values = fc.tuple(...chosen.map((k) => arbs.get(k) as fc.Arbitrary<unknown>));
      const more = extraArb({ min: Math.max(0, missing), max: Math.max(0, missing) }, new Set(kept.map((e) => e[0])));
      return fc.tuple(values, more).chain(([vs, added]) => {
        const value: Value = new Map(chosen.map((k, i) => [k, vs[i]]));
        for (const [k, v] of [...kept, ...added]) value.set(k, v);
        return addDependents(value, dependents);
      });
    });
  const mayReject = dependents.length > 0 || (minProperties > 0 && extras === null);
  const finished = mayReject ? checker.filter(arb, (v) => v !== REJECT, `an object with ${declared.join(', ')}`) : arb;
  return { arb: finished.map((v) => toObject(declared, v as Value)), exact: true };
}

/** Mostly a few optional keys, so values stay readable; sometimes any number of them. */
function optionalKeys(optional: readonly string[]): fc.Arbitrary<string[]> {
  if (optional.length === 0) return fc.constant([]);
  const all = fc.subarray([...optional]);
  if (optional.length <= FEW_OPTIONAL_KEYS) return all;
  return fc.oneof({ weight: 3, arbitrary: fc.subarray([...optional], { maxLength: FEW_OPTIONAL_KEYS }) }, { weight: 1, arbitrary: all });
}

/** Arbitraries for undeclared keys and their values, or null when no undeclared key is allowed. */
function extraEntries(
  host: BuildHost,
  members: readonly Located[],
  nameRules: readonly Located[],
  declared: readonly string[],
  ctx: Ctx,
): { name: fc.Arbitrary<string>; value: fc.Arbitrary<unknown> } | null {
  const schemas = members.map(schemaOf);
  if (schemas.some((s) => s.additionalProperties === false)) return null;
  const valueRules = members.filter((m) => 'additionalProperties' in schemaOf(m)).map((m) => pos(child(m, 'additionalProperties')));
  const value = host.build(valueRules, ctx);
  const name = host.build([pos(synthetic({ type: 'string' })), ...nameRules.map((r) => pos(r))], ctx);
  if (value === null || name === null) return null;
  const undeclared = (n: unknown): n is string =>
    typeof n === 'string' && !declared.includes(n) && schemas.every((s) => matchingPatterns(s, n).length === 0);
  return { name: host.checker.filter(name, undeclared, 'an undeclared key') as fc.Arbitrary<string>, value };
}
