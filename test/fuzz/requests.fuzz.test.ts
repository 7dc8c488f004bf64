// A bounded run of the request fuzzer (test/fuzz/request-fuzz.ts) in `npm test`; the seed is printed
// on failure for replay. Long runs: `npm run fuzz -- --runs 100000`.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, startE2E, target } from '../e2e/harness.ts';
import { checkOne, fuzzRequest, liveHeap } from './request-fuzz.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);

describe('hostile requests', () => {
  let e2e: E2E;

  beforeAll(async () => {
    e2e = await startE2E({ mocks: 1, configs: { chat: target(0), fallback: { strategy: { mode: 'fallback' }, targets: [target(0), target(0)] } } });
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it(`never crash the gateway, never get a 500, always get a well-formed error, never stall it or grow its heap (${RUNS} cases)`, { timeout: Math.max(120_000, RUNS * 100) }, async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const heapBefore = liveHeap();
    await fc.assert(
      fc.asyncProperty(fuzzRequest, async (request) => {
        const problem = await checkOne(e2e, request);
        expect(problem, JSON.stringify(request)).toBeNull();
      }),
      { numRuns: RUNS, verbose: 1, ...(process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED) }) },
    );
    delay.disable();
    expect(delay.max / 1e6, 'longest event-loop stall, ms').toBeLessThan(100);
    // The live heap after a full GC (RSS would count what V8 keeps for later and the test client's own).
    expect((liveHeap() - heapBefore) / 2 ** 20, 'live heap growth, MB').toBeLessThan(64);
    const health = await fetch(`${e2e.gateway.url}/v1/health`);
    expect(health.status).toBe(200);
  });
});
