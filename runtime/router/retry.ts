// Retrying one target (ARCHITECTURE §5 "Retry").
//
//   runWithRetries(plan: RetryPlan | null, tryOnce: (attemptIndex: number) => Promise<Outcome>,
//                  opts: RetryOptions): Promise<Outcome>
//     Calls tryOnce(0), then tryOnce(1), … while the outcome is retryable, at most
//     1 + plan.attempts times (attempts is clamped to 0..MAX_RETRY_ATTEMPTS). A null plan means one
//     try. The returned outcome is the last one, with `retries` set to the retries spent.
//
//   Retryable: a provider response whose status is in plan.onStatusCodes, or a gateway error of
//   status 408 (attempt timed out) or 502 (provider unreachable) whose status is in that list.
//   Other gateway errors (bad credentials, denied by a guardrail, …) would fail the same way again.
//
//   Between tries the failed response's body is discarded at once (so its pooled connection is
//   free during the wait), then we sleep: the provider's retry-after (capped at maxDelayMs) when
//   plan.useRetryAfterHeaders and the headers carry one, else full-jitter backoff.
//
//   When opts.signal aborts (the client went away) no further try starts and the last outcome is
//   returned; if the abort came during the wait, that outcome's body has already been discarded.
//   A tryOnce that throws is a bug in the caller and propagates.
import { MAX_RETRY_ATTEMPTS } from '../../compiler/config/errors.ts';
import type { RetryPlan } from '../core/plan.ts';
import type { Outcome } from './outcome.ts';
import { fullJitterDelayMs, retryAfterDelayMs } from './backoff.ts';

// The limits are the compiler's: the planner fills the default list, the checker enforces the maximum.
export { DEFAULT_RETRY_STATUS_CODES } from '../../compiler/config/plan.ts';
export { MAX_RETRY_ATTEMPTS };

/** Gateway-made outcomes that a second try may cure. */
const RETRYABLE_GATEWAY_STATUSES: readonly number[] = [408, 502];

export interface RetryOptions {
  /** Backoff base: the first retry waits up to this long, each next one up to twice as long. */
  baseDelayMs: number;
  /** Upper bound of every wait, jittered or asked for by retry-after. */
  maxDelayMs: number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Uniform in [0, 1). */
  random(): number;
  /** Epoch milliseconds, for retry-after HTTP dates. */
  now(): number;
  /** Aborts when the client goes away. */
  signal?: AbortSignal;
}

export function isRetryable(outcome: Outcome, plan: RetryPlan): boolean {
  if (outcome.error !== null) {
    return RETRYABLE_GATEWAY_STATUSES.includes(outcome.error.status) && plan.onStatusCodes.includes(outcome.error.status);
  }
  return plan.onStatusCodes.includes(outcome.status);
}

export function retryBudget(plan: RetryPlan | null): number {
  if (plan === null || !(plan.attempts > 0)) return 0;
  return Math.min(MAX_RETRY_ATTEMPTS, Math.floor(plan.attempts));
}

export async function runWithRetries(
  plan: RetryPlan | null,
  tryOnce: (attemptIndex: number) => Promise<Outcome>,
  opts: RetryOptions,
): Promise<Outcome> {
  const budget = retryBudget(plan);
  let retries = 0;
  for (;;) {
    const outcome = await tryOnce(retries);
    if (plan === null || retries >= budget || opts.signal?.aborted || !isRetryable(outcome, plan)) {
      return { ...outcome, retries };
    }
    const delayMs = waitBeforeRetry(plan, outcome, retries, opts);
    outcome.response?.discard();
    try {
      await opts.sleep(delayMs, opts.signal);
    } catch (err) {
      if (opts.signal?.aborted) return { ...outcome, retries };
      throw err;
    }
    if (opts.signal?.aborted) return { ...outcome, retries };
    retries += 1;
  }
}

function waitBeforeRetry(plan: RetryPlan, outcome: Outcome, retryIndex: number, opts: RetryOptions): number {
  if (plan.useRetryAfterHeaders && outcome.response !== null) {
    const asked = retryAfterDelayMs(outcome.response.headers, opts.now(), opts.maxDelayMs);
    if (asked !== null) return asked;
  }
  return fullJitterDelayMs(retryIndex, opts.baseDelayMs, opts.maxDelayMs, opts.random);
}
