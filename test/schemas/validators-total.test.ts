// The generated validators sit on the request path: whatever a client sends, they answer true or
// false and never throw.
import { fc, test as propTest } from '@fast-check/vitest';
import { describe, expect, test } from 'vitest';
import * as configValidator from '../../generated/config-validator.js';
import * as validators from '../../generated/validators.js';

const all: Array<[string, (data: unknown) => boolean]> = Object.entries({ ...validators, ...configValidator });

// JSON.parse output is what the server feeds them, including keys like `__proto__`.
const clientJson = fc.oneof(
  fc.jsonValue(),
  fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'model', 'prompt', 'n', 'best_of', 'stream', 'metadata', 'variables'), fc.jsonValue()),
).map((value) => JSON.parse(JSON.stringify(value)) as unknown);

describe('generated validators are total', () => {
  test('one export per schema file, plus the all-errors config validator', () => {
    expect(all.length).toBeGreaterThan(25);
    expect(all.map(([name]) => name)).toContain('validateConfigAllErrors');
  });

  propTest.prop([fc.constantFrom(...all), clientJson], { numRuns: 400 })('never throw and always answer a boolean', ([name, validate], value) => {
    let verdict: unknown;
    expect(() => (verdict = validate(value)), name).not.toThrow();
    expect(typeof verdict).toBe('boolean');
  });

  test('the all-errors config validator reports every problem, the fast one stops at the first', () => {
    const bad = { retry: { attempts: 'three' }, cb_config: { failure_threshold: 0, cooldown_interval: 10 }, nonsense: true };
    expect(configValidator.validateConfigAllErrors(bad)).toBe(false);
    expect(validators.validateConfig(bad)).toBe(false);
    expect(configValidator.validateConfigAllErrors.errors?.length ?? 0).toBeGreaterThan(2);
    expect(validators.validateConfig.errors?.length).toBe(1);
  });
});
