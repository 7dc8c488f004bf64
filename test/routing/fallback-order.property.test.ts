// Fallback keeps its order: targets are attempted strictly in config order (skipping open circuits
// unless all are open), each once (its retries contiguous), and the walk stops at the first outcome
// that is not a fallback outcome. Stated directly against the compiled router, without the reference.
import { describe, expect } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import { scripted, scriptedStatus, type Scenario } from '../reference/evaluate.ts';
import { answerArb, propertyTimeoutMs, runs, type Raw } from './arbitraries.ts';
import { runCompiled } from './harness.ts';

const CB = { failure_threshold: 1, cooldown_interval: 30_000 };
const codesArb = fc.subarray([400, 404, 408, 429, 500, 502, 503, 504], { minLength: 1, maxLength: 4 });

const targetArb = fc.record(
  {
    on_status_codes: codesArb,
    retry: fc.record({ attempts: fc.integer({ min: 0, max: 2 }) }),
    cb_config: fc.constant(CB),
  },
  { requiredKeys: [] },
);

const fallbackScenario: fc.Arbitrary<Scenario & { targets: Raw[]; codes: number[] | undefined }> = fc
  .record({
    targets: fc.array(targetArb, { minLength: 1, maxLength: 5 }),
    codes: fc.option(codesArb, { nil: undefined }),
  })
  .chain(({ targets, codes }) => {
    const leaves = targets.map((t) => ({ provider: 'vendor', api_key: 'k', ...t }));
    const paths = leaves.map((_, i) => `config.targets[${i}]`);
    const config = { strategy: codes ? { mode: 'fallback', on_status_codes: codes } : { mode: 'fallback' }, targets: leaves };
    return fc.record({
      config: fc.constant(config),
      targets: fc.constant(leaves as Raw[]),
      codes: fc.constant(codes),
      upstream: fc.tuple(...paths.map((p) => fc.array(answerArb(false), { minLength: 1, maxLength: 3 }).map((a) => [p, a] as const))).map((e) => Object.fromEntries(e)),
      open: fc.subarray(paths.filter((_, i) => 'cb_config' in leaves[i])),
    });
  });

describe('fallback order', () => {
  test.prop([fallbackScenario], { numRuns: runs(300) })(
    'attempts targets strictly in order and stops at the first non-fallback outcome',
    async (s) => {
      const run = await runCompiled(s);
      const index = (path: string) => Number(/^config\.targets\[(\d+)\]$/.exec(path)![1]);
      const visited = run.tried.map(index);
      // Non-decreasing: a target is left for good once the next one starts.
      for (let k = 1; k < visited.length; k++) expect(visited[k]).toBeGreaterThanOrEqual(visited[k - 1]);

      const open = new Set(s.open);
      const all = s.targets.map((_, i) => i);
      const usable = all.filter((i) => !open.has(`config.targets[${i}]`));
      const order = usable.length > 0 ? usable : all;
      const distinct = [...new Set(visited)];
      expect(distinct).toEqual(order.slice(0, distinct.length));

      const finalStatus = (i: number) => {
        const tries = visited.filter((v) => v === i).length;
        return scriptedStatus(scripted(s.upstream, `config.targets[${i}]`, tries - 1));
      };
      const movesOn = (i: number, status: number) => {
        const codes = (s.targets[i].on_status_codes as number[] | undefined) ?? s.codes;
        return codes ? codes.includes(status) : status < 200 || status > 299;
      };
      distinct.slice(0, -1).forEach((i) => expect(movesOn(i, finalStatus(i)), `target ${i} was left behind`).toBe(true));
      const last = distinct[distinct.length - 1];
      if (last !== order[order.length - 1]) expect(movesOn(last, finalStatus(last)), `stopped at target ${last}`).toBe(false);
      expect(run.status).toBe(finalStatus(last));
      expect(run.leafPath).toBe(`config.targets[${last}]`);
    },
    propertyTimeoutMs(),
  );
});
