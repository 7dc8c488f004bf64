// Retries through the compiled router: bounded by `attempts` (≤ 5), performed exactly while the
// status is retryable and budget remains, and the outcome's `retries` equals the retries performed.
import { describe, expect } from 'vitest';
import { test } from '@fast-check/vitest';
import { leavesOf, scripted, scriptedStatus } from '../reference/evaluate.ts';
import { configArb, propertyTimeoutMs, runs, scenarioArb } from './arbitraries.ts';
import { runCompiled } from './harness.ts';

describe('retries', () => {
  test.prop([scenarioArb(configArb(), { timeouts: false })], { numRuns: runs(300) })(
    'are bounded by attempts and counted exactly',
    async (scenario) => {
      const run = await runCompiled(scenario);
      const leaves = new Map(leavesOf(scenario.config).map((l) => [l.path, l]));
      const tries = new Map<string, number>();
      for (const path of run.tried) tries.set(path, (tries.get(path) ?? 0) + 1);

      let retriesPerformed = 0;
      for (const [path, count] of tries) {
        const leaf = leaves.get(path)!;
        expect(leaf.retryAttempts).toBeLessThanOrEqual(5);
        expect(count - 1, `${path} retried more than retry.attempts allows`).toBeLessThanOrEqual(leaf.retryAttempts);
        retriesPerformed += count - 1;
        // Every try but the last of a leaf was retryable; the last one either was not, or the budget was spent.
        for (let k = 0; k < count; k++) {
          const retryable = leaf.retryCodes.includes(scriptedStatus(scripted(scenario.upstream, path, k)));
          if (k < count - 1) expect(retryable, `${path} try ${k} was retried`).toBe(true);
          else if (count - 1 < leaf.retryAttempts) expect(retryable, `${path} stopped retrying with budget left`).toBe(false);
        }
      }
      expect(run.retries).toBe(tries.get(run.leafPath)! - 1);
      expect(run.waits).toHaveLength(retriesPerformed);
      expect(run.sleptMs.every((ms) => ms >= 0 && ms <= 60_000)).toBe(true);
    },
    propertyTimeoutMs(),
  );
});
