// What the array and object builders need from the generator, so they can recurse into children
// without importing it.
import type fc from 'fast-check';
import type { ConstraintChecker } from './schema-arbitrary-checker.ts';
import type { Constraint } from './schema-arbitrary-constraints.ts';
import type { Bindings } from './schema-arbitrary-leaves.ts';
import type { SchemaRegistry } from './schema-arbitrary-registry.ts';

/** Recursion state: how often a recursive `$ref` target was re-entered, and which were entered. */
export interface Ctx {
  readonly depth: number;
  readonly stack: readonly string[];
}

export interface BuildHost {
  readonly registry: SchemaRegistry;
  readonly checker: ConstraintChecker;
  /** Longest array generated beyond what `minItems` demands. */
  readonly maxItems: number;
  /** An arbitrary for instances meeting every constraint, or null when none fits the depth budget. */
  build(constraints: readonly Constraint[], ctx: Ctx, bindings?: Bindings): fc.Arbitrary<unknown> | null;
}

/** Marks a draw that could not be completed; filtered out (and counted) by whoever produced it. */
export const REJECT: unique symbol = Symbol('schema-arbitrary reject');
