import { describe, expect } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import type { RetryPlan } from '../../compiler/config/route-plan.ts';
import type { Outcome } from '../../runtime/router/outcome.ts';
import type { UpstreamResponse } from '../../runtime/upstream/types.ts';
import { GATEWAY_ERRORS, GatewayError, type GatewayErrorCode } from '../../runtime/core/errors.ts';
import { DEFAULT_RETRY_STATUS_CODES, MAX_RETRY_ATTEMPTS, runWithRetries, type RetryOptions } from '../../runtime/router/retry.ts';
import { sleep } from '../../runtime/router/abort.ts';

interface FakeResponse extends UpstreamResponse {
  discards: number;
}

function fakeResponse(status: number, headers: Record<string, string> = {}): FakeResponse {
  const response: FakeResponse = {
    status,
    headers,
    discards: 0,
    forwardTo: () => Promise.reject(new Error('not forwarded in these tests')),
    readAll: () => Promise.resolve(Buffer.alloc(0)),
    discard: () => {
      response.discards += 1;
    },
  };
  return response;
}

function responseOutcome(response: FakeResponse): Outcome {
  return { status: response.status, leafPath: 'config', provider: 'vendor', retries: 0, response, error: null };
}

function errorOutcome(code: GatewayErrorCode): Outcome {
  const error = new GatewayError(code);
  return { status: error.status, leafPath: 'config', provider: 'vendor', retries: 0, response: null, error };
}

const BASE = 100;
const MAX = 5_000;

function options(overrides: Partial<RetryOptions> & { sleeps?: number[] } = {}): RetryOptions {
  const sleeps = overrides.sleeps ?? [];
  return {
    baseDelayMs: BASE,
    maxDelayMs: MAX,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    now: () => Date.UTC(2025, 0, 1),
    ...overrides,
  };
}

const STATUS_POOL = [200, 201, 400, 404, 408, 429, 500, 502, 503, 504];
const ERROR_POOL: GatewayErrorCode[] = ['request_timeout', 'provider_unreachable', 'missing_provider_credentials', 'usage_limit_exceeded', 'not_ready'];

type Step = { kind: 'response'; status: number; retryAfterMs: number | null } | { kind: 'error'; code: GatewayErrorCode };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('response' as const),
    status: fc.constantFrom(...STATUS_POOL),
    retryAfterMs: fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: null }),
  }),
  fc.record({ kind: fc.constant('error' as const), code: fc.constantFrom(...ERROR_POOL) }),
);

const planArb: fc.Arbitrary<RetryPlan> = fc.record({
  attempts: fc.integer({ min: 0, max: MAX_RETRY_ATTEMPTS }),
  onStatusCodes: fc.subarray([...STATUS_POOL]),
  useRetryAfterHeaders: fc.boolean(),
});

// Written from ARCHITECTURE §5, independently of retry.ts.
function referenceRetryable(step: Step, plan: RetryPlan): boolean {
  if (step.kind === 'response') return plan.onStatusCodes.includes(step.status);
  const status = GATEWAY_ERRORS[step.code].status;
  return (status === 408 || status === 502) && plan.onStatusCodes.includes(status);
}

describe('runWithRetries', () => {
  test.prop([planArb, fc.array(stepArb, { minLength: 1, maxLength: 8 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })], {
    numRuns: 400,
  })('tries exactly as the spec says, counts retries exactly and discards every abandoned body once', async (plan, script, r) => {
    const outcomes: Outcome[] = [];
    const seenIndices: number[] = [];
    const sleeps: number[] = [];
    const result = await runWithRetries(
      plan,
      async (attemptIndex) => {
        seenIndices.push(attemptIndex);
        const step = script[Math.min(attemptIndex, script.length - 1)];
        const outcome =
          step.kind === 'error'
            ? errorOutcome(step.code)
            : responseOutcome(fakeResponse(step.status, step.retryAfterMs === null ? {} : { 'retry-after-ms': String(step.retryAfterMs) }));
        outcomes.push(outcome);
        return outcome;
      },
      options({ sleeps, random: () => r }),
    );

    let expectedTries = 1;
    while (expectedTries - 1 < plan.attempts && referenceRetryable(script[Math.min(expectedTries - 1, script.length - 1)], plan)) expectedTries++;

    expect(seenIndices).toEqual([...Array(expectedTries).keys()]);
    expect(result.retries).toBe(expectedTries - 1);
    const last = outcomes[outcomes.length - 1];
    expect(result.status).toBe(last.status);
    expect(result.response).toBe(last.response);
    expect(result.error).toBe(last.error);
    outcomes.forEach((outcome, i) => {
      const discards = (outcome.response as FakeResponse | null)?.discards ?? 0;
      expect(discards).toBe(outcome.response !== null && i < outcomes.length - 1 ? 1 : 0);
    });
    expect(sleeps).toHaveLength(expectedTries - 1);
    sleeps.forEach((ms, i) => {
      const step = script[Math.min(i, script.length - 1)];
      if (plan.useRetryAfterHeaders && step.kind === 'response' && step.retryAfterMs !== null) {
        expect(ms).toBe(Math.min(step.retryAfterMs, MAX));
      } else {
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(ms).toBeLessThanOrEqual(Math.min(MAX, BASE * 2 ** i));
      }
    });
  });

  test('a null plan tries once', async () => {
    let calls = 0;
    const result = await runWithRetries(null, async () => {
      calls++;
      return responseOutcome(fakeResponse(503));
    }, options());
    expect(calls).toBe(1);
    expect(result.retries).toBe(0);
  });

  test('never retries more than five times, whatever the plan says', async () => {
    let calls = 0;
    const result = await runWithRetries({ attempts: 50, onStatusCodes: [503], useRetryAfterHeaders: false }, async () => {
      calls++;
      return responseOutcome(fakeResponse(503));
    }, options());
    expect(calls).toBe(1 + MAX_RETRY_ATTEMPTS);
    expect(result.retries).toBe(MAX_RETRY_ATTEMPTS);
  });

  test('stops at the first success and reports the retries spent', async () => {
    const statuses = [429, 502, 200, 500];
    const result = await runWithRetries({ attempts: 5, onStatusCodes: [...DEFAULT_RETRY_STATUS_CODES], useRetryAfterHeaders: false }, async (i) =>
      responseOutcome(fakeResponse(statuses[i])), options());
    expect(result.status).toBe(200);
    expect(result.retries).toBe(2);
  });

  test('the default list is 429, 500, 502, 503, 504 and 529', () => {
    expect([...DEFAULT_RETRY_STATUS_CODES]).toEqual([429, 500, 502, 503, 504, 529]);
  });

  test('a retry-after HTTP date is honoured when asked to', async () => {
    const now = Date.UTC(2025, 0, 1, 0, 0, 0);
    const sleeps: number[] = [];
    await runWithRetries({ attempts: 1, onStatusCodes: [429], useRetryAfterHeaders: true }, async (i) =>
      responseOutcome(fakeResponse(i === 0 ? 429 : 200, { 'retry-after': new Date(now + 3000).toUTCString() })), options({ sleeps, now: () => now }));
    expect(sleeps).toEqual([3000]);
  });

  test('a client that goes away during the wait ends the retries', async () => {
    const controller = new AbortController();
    let calls = 0;
    const first = fakeResponse(503);
    const started = Date.now();
    const pending = runWithRetries({ attempts: 5, onStatusCodes: [503], useRetryAfterHeaders: false }, async () => {
      calls++;
      return responseOutcome(calls === 1 ? first : fakeResponse(503));
    }, { ...options(), baseDelayMs: 10_000, maxDelayMs: 10_000, random: () => 0.99, sleep, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('client closed')), 20);
    const result = await pending;
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(calls).toBe(1);
    expect(result.retries).toBe(0);
    expect(result.response).toBe(first);
    expect(first.discards).toBe(1);
  });

  test('a client already gone gets no retry and its body is left to the caller', async () => {
    const controller = new AbortController();
    controller.abort();
    const response = fakeResponse(503);
    let calls = 0;
    const result = await runWithRetries({ attempts: 3, onStatusCodes: [503], useRetryAfterHeaders: false }, async () => {
      calls++;
      return responseOutcome(response);
    }, options({ signal: controller.signal }));
    expect(calls).toBe(1);
    expect(result.retries).toBe(0);
    expect(response.discards).toBe(0);
  });

  test('a sleep that resolves although the client left still stops the retries', async () => {
    const controller = new AbortController();
    let calls = 0;
    const result = await runWithRetries({ attempts: 3, onStatusCodes: [500], useRetryAfterHeaders: false }, async () => {
      calls++;
      return responseOutcome(fakeResponse(500));
    }, options({ signal: controller.signal, sleep: async () => controller.abort() }));
    expect(calls).toBe(1);
    expect(result.retries).toBe(0);
  });

  test('gateway errors other than timeout and unreachable are never retried', async () => {
    let calls = 0;
    const result = await runWithRetries({ attempts: 3, onStatusCodes: [400, 446, 503], useRetryAfterHeaders: false }, async () => {
      calls++;
      return errorOutcome(calls === 1 ? 'missing_provider_credentials' : 'usage_limit_exceeded');
    }, options());
    expect(calls).toBe(1);
    expect(result.error?.code).toBe('missing_provider_credentials');
  });

  test('a timed-out attempt is retried as a 408 when 408 is listed', async () => {
    const codes: GatewayErrorCode[] = ['request_timeout', 'provider_unreachable'];
    const result = await runWithRetries({ attempts: 3, onStatusCodes: [408, 502], useRetryAfterHeaders: false }, async (i) =>
      i < codes.length ? errorOutcome(codes[i]) : responseOutcome(fakeResponse(200)), options());
    expect(result.status).toBe(200);
    expect(result.retries).toBe(2);
  });

  test('an unexpected sleep failure propagates', async () => {
    await expect(runWithRetries({ attempts: 1, onStatusCodes: [500], useRetryAfterHeaders: false }, async () =>
      responseOutcome(fakeResponse(500)), options({ sleep: () => Promise.reject(new Error('timer broke')) }))).rejects.toThrow('timer broke');
  });
});
