// How long to wait before a retry.
//
//   fullJitterDelayMs(retryIndex, baseMs, capMs, random): number
//     "Full jitter" exponential backoff: a whole number of ms drawn uniformly from
//     [0, min(capMs, baseMs · 2^retryIndex)]. retryIndex is 0 for the first retry. `random` returns
//     values in [0, 1) like Math.random; it is injected so tests are deterministic.
//   retryAfterDelayMs(headers, nowMs, capMs): number | null
//     The wait a provider asked for, capped at capMs: `retry-after-ms` (milliseconds, fractions
//     allowed) first, then `retry-after` as delta-seconds or an HTTP date. Header names must be
//     lower-case (as node:http and the upstream layer give them). A missing, garbage or negative
//     value, or a date already past, gives null: the caller falls back to the jittered delay.
import { parseHttpDate } from './http-date.ts';
import { RETRY_AFTER_HEADER, RETRY_AFTER_MS_HEADER } from '../core/retry-after-headers.ts';

export type ResponseHeaders = Record<string, string | string[] | undefined>;

export function fullJitterDelayMs(retryIndex: number, baseMs: number, capMs: number, random: () => number): number {
  const exponent = Math.max(0, retryIndex);
  // 2^exponent overflows to Infinity for large indices; min() with the cap absorbs that.
  const ceiling = Math.max(0, Math.min(capMs, baseMs * 2 ** exponent));
  if (!Number.isFinite(ceiling)) return 0;
  const r = random();
  const unit = r >= 0 && r <= 1 ? r : 0;
  return Math.floor(unit * ceiling);
}

// Decimal only: no signs, exponents, hex or `Infinity`, which Number() would accept.
const NON_NEGATIVE_DECIMAL = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*$/;

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function parseDecimal(value: string | undefined): number | null {
  if (value === undefined) return null;
  const m = NON_NEGATIVE_DECIMAL.exec(value);
  return m ? Number(m[1]) : null;
}

export function retryAfterDelayMs(headers: ResponseHeaders, nowMs: number, capMs: number): number | null {
  const ms = parseDecimal(firstValue(headers[RETRY_AFTER_MS_HEADER]));
  if (ms !== null) return Math.min(ms, capMs);

  const retryAfter = firstValue(headers[RETRY_AFTER_HEADER]);
  if (retryAfter === undefined) return null;
  const seconds = parseDecimal(retryAfter);
  if (seconds !== null) return Math.min(seconds * 1000, capMs);
  const at = parseHttpDate(retryAfter, nowMs);
  if (at === null || at < nowMs) return null;
  return Math.min(at - nowMs, capMs);
}
