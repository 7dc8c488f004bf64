// compiled router ≡ reference evaluator, on generated configs (strategy trees up to 3 deep with
// random modes, weights, codes, names, conditions, inherited retry/timeout/breaker settings) and
// generated requests, upstream answers, open circuits and random draws.
import { describe, expect } from 'vitest';
import { test } from '@fast-check/vitest';
import { evaluate, leavesOf, type RoutingResult } from '../reference/evaluate.ts';
import { configArb, propertyTimeoutMs, runs, scenarioArb } from './arbitraries.ts';
import { runCompiled } from './harness.ts';

export function core(result: RoutingResult): RoutingResult {
  const { tried, status, leafPath, retries, error, waits, draws, overrideParams } = result;
  return { tried, status, leafPath, retries, error, waits, draws, overrideParams };
}

describe('compiled router ≡ reference evaluator', () => {
  test.prop([scenarioArb(configArb(), { timeouts: false })], { numRuns: runs(300) })(
    'on generated configs and answers (no timeouts)',
    async (scenario) => {
      expect(core(await runCompiled(scenario))).toEqual(evaluate(scenario));
    },
    propertyTimeoutMs(),
  );

  test.prop([scenarioArb(configArb({ maxDepth: 2 }))], { numRuns: runs(60) })(
    'with attempt timeouts (real timers, 2–3 ms)',
    async (scenario) => {
      expect(core(await runCompiled(scenario))).toEqual(evaluate(scenario));
    },
    propertyTimeoutMs(),
  );

  test.prop([configArb()], { numRuns: runs(100) })('generated configs nest up to 3 deep and every leaf is a real target', (config) => {
    const leaves = leavesOf(config);
    expect(leaves.length).toBeGreaterThan(0);
    for (const leaf of leaves) expect(leaf.path).toMatch(/^config(\.targets\[\d\]){0,3}$/);
  });
});
