// A bounded run of the request fuzzer (test/fuzz/request-fuzz.ts) in `npm test`; the seed is printed
// on failure for replay. Long runs: `npm run fuzz -- --runs 100000`.
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, startE2E, target } from '../e2e/harness.ts';
import { checkOne, fuzzRequest } from './request-fuzz.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);

describe('hostile requests', () => {
  let e2e: E2E;

  beforeAll(async () => {
    e2e = await startE2E({ mocks: 1, configs: { chat: target(0), fallback: { strategy: { mode: 'fallback' }, targets: [target(0), target(0)] } } });
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it(`never crash the gateway, never get a 500, always get a well-formed error (${RUNS} cases)`, { timeout: Math.max(120_000, RUNS * 100) }, async () => {
    await fc.assert(
      fc.asyncProperty(fuzzRequest, async (request) => {
        const problem = await checkOne(e2e, request);
        expect(problem, JSON.stringify(request)).toBeNull();
      }),
      { numRuns: RUNS, verbose: 1, ...(process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED) }) },
    );
    const health = await fetch(`${e2e.gateway.url}/v1/health`);
    expect(health.status).toBe(200);
  });
});
