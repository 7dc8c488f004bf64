// The answer headers of a rate-limited route, in the vendor's names so its SDK's retry logic reads
// them: x-ratelimit-{limit,remaining,reset}-{requests,tokens} on every answer of a route that a
// rate-limits policy matched, and retry-after (seconds) with retry-after-ms on a 429.
import type { WindowState } from './window.ts';
import { RETRY_AFTER_HEADER, RETRY_AFTER_MS_HEADER } from '../../core/retry-after-headers.ts';
const RATE_LIMIT_PREFIX = 'x-ratelimit-';

export type RateLimitType = 'requests' | 'tokens';

/** Sets the limit, remaining and reset headers of one policy type. */
export function setRateLimitHeaders(headers: Record<string, string>, type: RateLimitType, limit: number, state: WindowState): void {
  headers[`${RATE_LIMIT_PREFIX}limit-${type}`] = String(limit);
  headers[`${RATE_LIMIT_PREFIX}remaining-${type}`] = String(Math.max(0, Math.floor(limit - state.used)));
  headers[`${RATE_LIMIT_PREFIX}reset-${type}`] = durationText(state.resetMs);
}

export function setRetryAfter(headers: Record<string, string>, ms: number): void {
  headers[RETRY_AFTER_HEADER] = String(Math.max(1, Math.ceil(ms / 1000)));
  headers[RETRY_AFTER_MS_HEADER] = String(Math.max(1, Math.ceil(ms)));
}

/** A duration as the vendor writes its reset headers: `250ms`, `12s`, `1m30s`, `2h0m0s`. */
export function durationText(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const total = Math.ceil(ms / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}
