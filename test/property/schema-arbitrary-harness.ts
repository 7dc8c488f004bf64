// Shared by the schema-arbitrary tests: an Ajv set up independently of the generator's own, and a
// property runner that draws values with a fresh seed, checks each, and names the seed in any failure.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';

export function createTestAjv(documents: readonly object[] = []): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, $data: true, allowUnionTypes: true });
  addFormats.default(ajv);
  for (const doc of documents) ajv.addSchema(doc);
  return ajv;
}

export function freshSeed(): number {
  return (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0;
}

export interface Drawn {
  readonly seed: number;
  readonly values: unknown[];
}

/**
 * Draws `numRuns` values and fails (with the seed and the Ajv errors) on the first invalid one.
 * Returns the values so callers can assert what the draws covered.
 */
export function drawValid(arb: fc.Arbitrary<unknown>, validate: ValidateFunction, numRuns: number, seed = freshSeed()): Drawn {
  const values: unknown[] = [];
  fc.assert(
    fc.property(arb, (value) => {
      if (validate(value) !== true) {
        throw new Error(`invalid value ${JSON.stringify(value)}: ${JSON.stringify(validate.errors)}`);
      }
      values.push(value);
    }),
    { numRuns, seed },
  );
  return { seed, values };
}

/** Runs coverage assertions so a failure names the seed that produced the values. */
export function withSeed(seed: number, assertions: () => void): void {
  try {
    assertions();
  } catch (error) {
    if (error instanceof Error) error.message = `${error.message}\n(replay with seed ${seed})`;
    throw error;
  }
}

export function keysOf(value: unknown): string[] {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value) : [];
}

/** How deeply arrays nest inside `value` (0 for a non-array). */
export function arrayNesting(value: unknown): number {
  return Array.isArray(value) ? 1 + Math.max(0, ...value.map(arrayNesting)) : 0;
}
