// The generator's own validator: decides enum candidates exactly and backs the few filters it needs,
// counting every filter decision so tests can prove the filters reject rarely.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { child, isSchemaObject, locationKey, type Located, type SchemaRegistry } from './schema-arbitrary-registry.ts';
import { isData, type Constraint } from './schema-arbitrary-constraints.ts';

/** Filled in while values are drawn: how often a filter ran and how often it said no. */
export interface FilterStats {
  checks: number;
  rejections: number;
}

const MAX_REJECTION_STREAK = 1000;

/** Compiled checks per schema location; depends only on the documents, so generators may share it. */
export class LocationValidators {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly registry: SchemaRegistry;

  constructor(registry: SchemaRegistry) {
    this.registry = registry;
    // The documents are the project's own, validated where they are built; re-checking them per generator is slow.
    this.ajv = new Ajv2020({ strict: false, $data: true, allowUnionTypes: true, validateSchema: false });
    addFormats.default(this.ajv);
    for (const doc of registry.documents) this.ajv.addSchema(doc);
  }

  matches(loc: Located, value: unknown): boolean {
    const key = locationKey(loc);
    let validate = this.compiled.get(key);
    if (validate === undefined) {
      validate = this.compile(loc);
      this.compiled.set(key, validate);
    }
    return validate(value) === true;
  }

  private compile(loc: Located): ValidateFunction {
    if (loc.synthetic !== undefined) return this.ajv.compile(loc.schema);
    try {
      return this.ajv.compile({ $ref: this.registry.uri(loc) });
    } catch (error) {
      // Ajv cannot compile a fragment whose `$data` points above it. Sibling bounds are enforced
      // where the parent object is built, so here the fragment is checked without them.
      if (!(error instanceof Error) || !/levels up/.test(error.message)) throw error;
      return this.ajv.compile(this.withoutData(loc) as object);
    }
  }

  /** A copy of `loc`'s schema with `$data` bounds dropped and `$ref`s made absolute. */
  private withoutData(loc: Located): unknown {
    const copy = (value: unknown, path: string[]): unknown => {
      if (Array.isArray(value)) return value.map((item, i) => copy(item, [...path, String(i)]));
      if (!isSchemaObject(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (isData(v)) continue;
        if (k === '$ref' && typeof v === 'string') out.$ref = this.registry.uri(this.registry.resolve(child(loc, ...path), v));
        else if (k === 'const' || k === 'enum' || k === 'default' || k === 'examples') out[k] = v;
        else out[k] = copy(v, [...path, k]);
      }
      return out;
    };
    return copy(loc.schema, []);
  }
}

/** Checks constraints on drawn values, and counts what its filters decide into `stats`. */
export class ConstraintChecker {
  private readonly validators: LocationValidators;
  readonly stats: FilterStats;

  constructor(validators: LocationValidators, stats: FilterStats) {
    this.validators = validators;
    this.stats = stats;
  }

  matches(loc: Located, value: unknown): boolean {
    return this.validators.matches(loc, value);
  }

  satisfies(constraint: Constraint, value: unknown): boolean {
    switch (constraint.kind) {
      case 'pos':
        return this.matches(constraint.loc, value);
      case 'neg':
        return !this.matches(constraint.loc, value);
      case 'prop':
        return typeof value !== 'object' || value === null || Array.isArray(value) ||
          !Object.hasOwn(value, constraint.key) ||
          this.satisfies(constraint.inner, (value as Record<string, unknown>)[constraint.key]);
    }
  }

  /** A filter that records its verdicts; used only where exact generation is not attempted. */
  filter<T>(arb: fc.Arbitrary<T>, predicate: (value: T) => boolean, what = 'a value'): fc.Arbitrary<T> {
    let streak = 0;
    return arb.filter((value) => {
      this.stats.checks++;
      const ok = predicate(value);
      if (ok) streak = 0;
      else {
        this.stats.rejections++;
        // fast-check retries a filter forever; a generator bug must fail loudly instead of hanging.
        if (++streak >= MAX_REJECTION_STREAK) throw new Error(`schema-arbitrary: ${MAX_REJECTION_STREAK} draws in a row rejected for ${what}`);
      }
      return ok;
    });
  }
}
