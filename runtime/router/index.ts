// The primitives generated routers call, in one import. Each file's header documents its API.
export type { Outcome } from './outcome.ts';
export { sleep, attemptSignal, MAX_TIMER_MS, type AttemptSignal } from './abort.ts';
export { fullJitterDelayMs, retryAfterDelayMs, type ResponseHeaders } from './backoff.ts';
export { parseHttpDate } from './http-date.ts';
export {
  runWithRetries,
  isRetryable,
  retryBudget,
  DEFAULT_RETRY_STATUS_CODES,
  MAX_RETRY_ATTEMPTS,
  type RetryOptions,
} from './retry.ts';
export {
  CircuitBreakers,
  MemoryBreakerStore,
  isBreakerFailure,
  type BreakerState,
  type BreakerStore,
} from './breaker.ts';
export { pickWeighted, fallbackOrder } from './weighted-pick.ts';
export {
  readField,
  compareEq,
  eq,
  ne,
  gt,
  gte,
  lt,
  lte,
  inList,
  notInList,
  matches,
} from '../../compiler/config/query-operators.ts';
