// JSON Schema 2020-12 → fast-check arbitrary of values valid against it.
//
// A schema node is handled as a conjunction of constraints. $ref and allOf are merged in; each
// disjunction (anyOf, oneOf, if/then/else, not, dependentSchemas) becomes a choice made before
// generating: `if` is decided first (generate `if`+`then`, or `not if`+`else`), `oneOf` branch i
// comes with the negations of the others, and `not` is pushed down by De Morgan until it reaches
// keywords that can be generated or, failing that, checked. Each choice is built eagerly and memoised;
// a branch that cannot terminate within the depth budget builds to null and is dropped, which is how
// recursion (`targets: {items: {$ref: "#"}}`) ends. Filters are used only where generation is not
// exact, and every filter decision is counted in `stats`.
import fc from 'fast-check';
import { arrayLeaf, canonicalJson } from './schema-arbitrary-array.ts';
import { ConstraintChecker, LocationValidators, type FilterStats } from './schema-arbitrary-checker.ts';
import {
  ALL_TYPES, LEAF_KEYWORD_TYPES, branchingOf, constraintKey, isData, isDone, markDone, pos, type Constraint,
} from './schema-arbitrary-constraints.ts';
import { bindSizes, hasUnsupportedData } from './schema-arbitrary-data.ts';
import type { BuildHost, Ctx } from './schema-arbitrary-host.ts';
import { integerDomain, numberLeaf, stringLeaf, type Bindings, type Leaf } from './schema-arbitrary-leaves.ts';
import { objectLeaf } from './schema-arbitrary-object.ts';
import {
  SchemaRegistry, child, isSchemaObject, locationKey, type Located, type SchemaObject,
} from './schema-arbitrary-registry.ts';

export type { FilterStats } from './schema-arbitrary-checker.ts';

export interface SchemaArbitraryOptions {
  /** Other documents that `$ref`s may reach, by `$id` or, failing that, by file name. */
  schemas?: object[];
  /** How many times a recursive `$ref` target may be re-entered below its first use (default 2). */
  maxDepth?: number;
  /** Longest generated array, unless `minItems` asks for more (default 4). */
  maxItems?: number;
  /**
   * Arbitraries used in place of generation at a schema location: a JSON pointer into the root
   * schema (`/properties/name`, `#/properties/name`) or `$id#pointer` for any document. They apply
   * wherever that location is used, also through `$ref`, and are trusted to produce valid values.
   */
  overrides?: Record<string, fc.Arbitrary<unknown>>;
  /** Receives the count of filter checks and rejections while values are drawn. */
  stats?: FilterStats;
}

// Keywords that assert something this generator does not produce: a value is checked against them.
const CHECKED_KEYWORDS = [
  'contains', 'minContains', 'maxContains', 'unevaluatedProperties', 'unevaluatedItems', '$dynamicRef',
  '$recursiveRef', 'dependencies',
];

const OBJECT_KEYWORDS = [
  'properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties',
  'maxProperties', 'dependentRequired',
];
const ARRAY_KEYWORDS = ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems'];

const ANY_JSON = fc.jsonValue({ maxDepth: 2 });
const SMALL_INTEGER_DOMAIN = 256;

/** True for a schema that says nothing but `type`, and lists `type` among its types. */
function isTypeOnly(schema: unknown, type: string): boolean {
  return isSchemaObject(schema) && Object.keys(schema).every((k) => k === 'type') && (typeList(schema) ?? []).includes(type);
}

function typeList(s: SchemaObject): string[] | undefined {
  if (typeof s.type === 'string') return [s.type];
  return Array.isArray(s.type) ? s.type.filter((t): t is string => typeof t === 'string') : undefined;
}

/** The literal values a member allows by `const`/`enum` (a bound `$data` const included), if any. */
function literals(s: SchemaObject, bindings: Bindings | undefined): unknown[] | undefined {
  if (isData(s.const)) {
    const bound = bindings?.get(s.const.$data);
    if (bound !== undefined) return [bound];
  } else if ('const' in s) return [s.const];
  return Array.isArray(s.enum) ? s.enum : undefined;
}

/** Instance kinds a member's keywords point at, for members that do not say `type`. */
function impliedKinds(s: SchemaObject): string[] {
  const kinds: string[] = [];
  for (const keyword of Object.keys(s)) {
    const leafType = LEAF_KEYWORD_TYPES[keyword];
    if (leafType === 'number') kinds.push('number', 'integer');
    else if (typeof leafType === 'string') kinds.push(leafType);
    if (OBJECT_KEYWORDS.includes(keyword)) kinds.push('object');
    if (ARRAY_KEYWORDS.includes(keyword)) kinds.push('array');
  }
  return kinds;
}

// Generators drawing from one list of documents that holds their root share its index and checks.
const sharedDocuments = new WeakMap<object[], { registry: SchemaRegistry; validators: LocationValidators }>();

function documentsFor(schema: object, schemas: object[]): { registry: SchemaRegistry; validators: LocationValidators } {
  const shareable = schemas.includes(schema);
  const known = shareable ? sharedDocuments.get(schemas) : undefined;
  if (known !== undefined) return known;
  const registry = new SchemaRegistry(shareable ? schemas : [schema, ...schemas]);
  const made = { registry, validators: new LocationValidators(registry) };
  if (shareable) sharedDocuments.set(schemas, made);
  return made;
}

class SchemaGenerator implements BuildHost {
  readonly registry: SchemaRegistry;
  readonly checker: ConstraintChecker;
  readonly maxItems: number;
  private readonly maxDepth: number;
  private readonly rootId: string;
  private readonly overrides = new Map<string, fc.Arbitrary<unknown>>();
  private readonly memo = new Map<string, fc.Arbitrary<unknown> | null>();

  constructor(schema: object, options: SchemaArbitraryOptions, stats: FilterStats) {
    const { registry, validators } = documentsFor(schema, options.schemas ?? []);
    this.registry = registry;
    this.rootId = registry.idOf(schema);
    this.checker = new ConstraintChecker(validators, stats);
    this.maxDepth = options.maxDepth ?? 2;
    this.maxItems = options.maxItems ?? 4;
    for (const [where, arb] of Object.entries(options.overrides ?? {})) this.overrides.set(this.overrideKey(where), arb);
  }

  root(): fc.Arbitrary<unknown> {
    const root = this.registry.at(this.rootId, '');
    const stack = this.registry.isRecursive(root) ? [locationKey(root)] : [];
    const arb = this.build([pos(root)], { depth: 0, stack });
    if (arb === null) throw new Error('schema-arbitrary: no value of this schema fits within maxDepth');
    if (!hasUnsupportedData(this.registry.documents)) return arb;
    // `$data` other than a sibling's bound, size or const is not generated for: whole values are checked.
    return this.checker.filter(arb, (v) => this.checker.matches(root, v), 'the whole value ($data)');
  }

  build(constraints: readonly Constraint[], ctx: Ctx, bindings?: Bindings): fc.Arbitrary<unknown> | null {
    if (bindings !== undefined) return this.buildNode(constraints, ctx, bindings);
    const key = `${ctx.depth}|${ctx.stack.join(',')}|${constraints.map(constraintKey).sort().join('&')}`;
    if (!this.memo.has(key)) this.memo.set(key, this.buildNode(constraints, ctx, undefined));
    return this.memo.get(key) ?? null;
  }

  private overrideKey(where: string): string {
    const hash = where.indexOf('#');
    const doc = hash <= 0 ? this.rootId : this.registry.documentFor(new URL(where.slice(0, hash), this.rootId).href);
    if (doc === undefined) throw new Error(`schema-arbitrary: override "${where}" names an unknown document`);
    const pointer = hash <= 0 ? where.slice(hash + 1) : decodeURIComponent(where.slice(hash + 1));
    // Fails on a pointer to nothing, so a misspelt override does not silently go unused.
    return locationKey(this.registry.at(doc, pointer));
  }

  private buildNode(constraints: readonly Constraint[], ctx: Ctx, bindings: Bindings | undefined): fc.Arbitrary<unknown> | null {
    const normal = this.normalize(constraints, ctx);
    if (normal === null) return null;
    const [flat, inner] = normal;
    for (const c of flat) {
      const override = c.kind === 'pos' && c.loc.synthetic === undefined ? this.overrides.get(locationKey(c.loc)) : undefined;
      if (override !== undefined) return override;
    }
    for (let i = 0; i < flat.length; i++) {
      const branching = branchingOf(flat[i], this.registry);
      if (branching === undefined) continue;
      const rest = flat.filter((_, j) => j !== i);
      if (branching.replacement !== undefined) rest.push(branching.replacement);
      const arbs = branching.alternatives
        .map((alternative) => this.build([...rest, ...alternative], inner, bindings))
        .filter((a): a is fc.Arbitrary<unknown> => a !== null);
      return arbs.length === 0 ? null : arbs.length === 1 ? arbs[0] : fc.oneof(...arbs);
    }
    return this.leaf(flat, inner, bindings);
  }

  /** Merges `$ref` targets and `allOf` parts in; null when a part is `false` or out of depth budget. */
  private normalize(constraints: readonly Constraint[], ctx: Ctx): [Constraint[], Ctx] | null {
    let depth = ctx.depth;
    const stack = new Set(ctx.stack);
    const queue = [...constraints];
    const out: Constraint[] = [];
    const seen = new Set<string>();
    while (queue.length > 0) {
      const c = queue.shift() as Constraint;
      const key = constraintKey(c);
      if (seen.has(key)) continue;
      seen.add(key);
      if (c.kind !== 'pos') {
        if (c.kind === 'neg' && c.loc.schema === false) continue;
        if (c.kind === 'neg' && c.loc.schema === true) return null;
        out.push(c);
        continue;
      }
      let p = c;
      const s = p.loc.schema;
      if (s === true) continue;
      if (s === false) return null;
      if (typeof s.$ref === 'string' && !isDone(p, '$ref')) {
        const target = this.registry.resolve(p.loc, s.$ref);
        if (this.registry.isRecursive(target)) {
          const targetKey = locationKey(target);
          if (stack.has(targetKey)) depth++;
          else stack.add(targetKey);
          if (depth > this.maxDepth) return null;
        }
        queue.push(pos(target));
        p = markDone(p, '$ref');
      }
      if (Array.isArray(s.allOf) && !isDone(p, 'allOf')) {
        s.allOf.forEach((_, i) => queue.push(pos(child(c.loc, 'allOf', i))));
        p = markDone(p, 'allOf');
      }
      out.push(p);
    }
    return [out, { depth, stack: [...stack].sort() }];
  }

  /** A node with no choice left: pick the instance types it allows and generate each. */
  private leaf(flat: readonly Constraint[], ctx: Ctx, bindings: Bindings | undefined): fc.Arbitrary<unknown> | null {
    const members: Located[] = [];
    const props: (Constraint & { kind: 'prop' })[] = [];
    const checks: Constraint[] = [];
    const blocked = new Set<string>();
    for (const c of flat) {
      if (c.kind === 'pos' && isSchemaObject(c.loc.schema)) {
        if (CHECKED_KEYWORDS.some((k) => k in (c.loc.schema as SchemaObject))) checks.push(c);
        if (bindings === undefined) members.push(c.loc);
        else {
          // Sizes read from siblings become literals here; the location stays, so children resolve alike.
          const bound = bindSizes(c.loc.schema, bindings);
          bound.blocked.forEach((k) => blocked.add(k));
          members.push({ ...c.loc, schema: bound.schema });
        }
      } else if (c.kind === 'prop') props.push(c);
      else if (c.kind === 'neg') checks.push(c);
    }
    const schemas = members.map((m) => m.schema as SchemaObject);
    const satisfiesAll = (v: unknown) => flat.every((c) => this.checker.satisfies(c, v));

    let candidates: unknown[] | undefined;
    for (const s of schemas) {
      const allowed = literals(s, bindings);
      if (allowed !== undefined) candidates = candidates === undefined ? allowed : candidates.filter((v) => allowed.some((a) => canonicalJson(a) === canonicalJson(v)));
    }
    if (candidates !== undefined) {
      const valid = candidates.filter(satisfiesAll);
      return valid.length > 0 ? fc.constantFrom(...valid) : null;
    }

    let kinds = new Set<string>(ALL_TYPES);
    let typed = false;
    for (const s of schemas) {
      const types = typeList(s);
      if (types === undefined) continue;
      typed = true;
      const expanded = new Set(types.flatMap((t) => (t === 'number' ? ['number', 'integer'] : [t])));
      kinds = new Set([...kinds].filter((k) => expanded.has(k)));
    }
    if (!typed) {
      const implied = new Set(schemas.flatMap(impliedKinds));
      if (props.length > 0) implied.add('object');
      if (implied.size === 0) return checks.length > 0 ? this.checker.filter(ANY_JSON, satisfiesAll, flat.map(constraintKey).join(' & ')) : ANY_JSON;
      kinds = implied;
    }

    blocked.forEach((k) => kinds.delete(k));
    // "not of type T" left over from a negation removes kinds instead of filtering them away.
    for (const c of checks) {
      const s = c.kind === 'neg' ? c.loc.schema : undefined;
      if (!isSchemaObject(s) || Object.keys(s).some((k) => k !== 'type')) continue;
      for (const t of typeList(s) ?? []) {
        if (t !== 'integer' || !kinds.has('number')) kinds.delete(t);
        if (t === 'number') kinds.delete('integer');
      }
    }

    const what = flat.map(constraintKey).join(' & ');
    const options: fc.Arbitrary<unknown>[] = [];
    const leaves: (Leaf | null)[] = [];
    const finite: unknown[] = [...(kinds.has('null') ? [null] : []), ...(kinds.has('boolean') ? [true, false] : [])];
    const fractional = checks.some((c) => c.kind === 'neg' && isTypeOnly(c.loc.schema, 'integer'));
    // With checks to pass, a short integer range is listed and checked value by value, never filtered.
    const domain = kinds.has('integer') && !kinds.has('number') && checks.length > 0
      ? integerDomain(schemas, bindings, SMALL_INTEGER_DOMAIN) : undefined;
    if (domain !== undefined) finite.push(...domain);
    else if (kinds.has('number')) leaves.push(numberLeaf(schemas, false, bindings, fractional));
    else if (kinds.has('integer')) leaves.push(numberLeaf(schemas, true, bindings));
    const allowed = finite.filter(satisfiesAll);
    if (allowed.length > 0) options.push(fc.constantFrom(...allowed));
    if (kinds.has('string')) leaves.push(stringLeaf(schemas));
    if (kinds.has('array')) leaves.push(arrayLeaf(this, members, ctx));
    if (kinds.has('object')) leaves.push(objectLeaf(this, members, props, ctx));
    for (const leaf of leaves) {
      if (leaf === null) continue;
      if (!leaf.exact) options.push(this.checker.filter(leaf.arb, satisfiesAll, what));
      else if (checks.length > 0) options.push(this.checker.filter(leaf.arb, (v) => checks.every((c) => this.checker.satisfies(c, v)), what));
      else options.push(leaf.arb);
    }
    return options.length === 0 ? null : options.length === 1 ? options[0] : fc.oneof(...options);
  }
}

/** An arbitrary of values valid against `schema` (JSON Schema 2020-12, Ajv `$data` for numeric bounds). */
export function arbitraryFromSchema(schema: object, options: SchemaArbitraryOptions = {}): fc.Arbitrary<unknown> {
  const stats = options.stats ?? { checks: 0, rejections: 0 };
  return new SchemaGenerator(schema, options, stats).root();
}
