// The generator's own validator: decides enum candidates exactly and backs the few filters it needs,
// counting every filter decision so tests can prove the filters reject rarely.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { locationKey, type Located, type SchemaRegistry } from './schema-arbitrary-registry.ts';
import type { Constraint } from './schema-arbitrary-constraints.ts';

/** Filled in while values are drawn: how often a filter ran and how often it said no. */
export interface FilterStats {
  checks: number;
  rejections: number;
}

const MAX_REJECTION_STREAK = 1000;

export class ConstraintChecker {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly registry: SchemaRegistry;
  readonly stats: FilterStats;

  constructor(registry: SchemaRegistry, stats: FilterStats) {
    this.registry = registry;
    this.stats = stats;
    this.ajv = new Ajv2020({ strict: false, $data: true, allowUnionTypes: true });
    addFormats.default(this.ajv);
    for (const doc of registry.documents) this.ajv.addSchema(doc);
  }

  matches(loc: Located, value: unknown): boolean {
    const key = locationKey(loc);
    let validate = this.compiled.get(key);
    if (validate === undefined) {
      const schema = loc.synthetic !== undefined ? loc.schema : { $ref: this.registry.uri(loc) };
      validate = this.ajv.compile(schema);
      this.compiled.set(key, validate);
    }
    return validate(value) === true;
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
