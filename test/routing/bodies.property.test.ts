// No leaked connections: every upstream body the router did not return was discarded exactly once
// (and never read); the returned body is the answering try's, read once and never discarded.
import { describe, expect } from 'vitest';
import { test } from '@fast-check/vitest';
import { scripted } from '../reference/evaluate.ts';
import { configArb, propertyTimeoutMs, runs, scenarioArb } from './arbitraries.ts';
import { runCompiled } from './harness.ts';

describe('upstream bodies', () => {
  test.prop([scenarioArb(configArb({ maxDepth: 3 }), { timeouts: false })], { numRuns: runs(300) })(
    'every body not returned is discarded exactly once',
    async (scenario) => {
      const run = await runCompiled(scenario);
      if (run.error === null) expect(run.body).toBe(`${run.leafPath}#${run.retries}`);
      else expect(run.body).toBeNull();
      for (const body of run.bodies) {
        const returned = run.error === null && body.path === run.leafPath && body.attempt === run.retries;
        expect({ body: `${body.path}#${body.attempt}`, discards: body.discards, reads: body.reads, forwards: body.forwards }).toEqual({
          body: `${body.path}#${body.attempt}`,
          discards: returned ? 0 : 1,
          reads: returned ? 1 : 0,
          forwards: 0,
        });
      }
      // One body per try that the script answers with a response, in try order.
      const seen = new Map<string, number>();
      const answered = run.tried.flatMap((path) => {
        const attempt = seen.get(path) ?? 0;
        seen.set(path, attempt + 1);
        const answer = scripted(scenario.upstream, path, attempt);
        return answer === 'timeout' || answer === 'connection error' ? [] : [`${path}#${attempt}`];
      });
      expect(run.bodies.map((b) => `${b.path}#${b.attempt}`)).toEqual(answered);
    },
    propertyTimeoutMs(),
  );
});
