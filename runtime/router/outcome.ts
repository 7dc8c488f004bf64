// What one routed attempt (or a whole route) ends with. The upstream body is not consumed
// until the server commits to it, so fallback and retry can still discard it.
import type { UpstreamResponse } from '../upstream/types.ts';
import type { GatewayError } from '../core/errors.ts';

export interface Outcome {
  /** HTTP status the client would see: the provider's, or the gateway error's (408 timeout, 502 unreachable). */
  status: number;
  /** Path of the leaf that produced it, e.g. `config.targets[1]`. */
  leafPath: string;
  /** Provider name of that leaf (x-gateway-provider). */
  provider: string;
  /** Retries spent on that leaf (x-gateway-retry-attempt-count). */
  retries: number;
  /**
   * Gateway headers a stage adds to the answer (x-gateway-cache-status, x-ratelimit-*, retry-after),
   * sent with error answers too; absent when no stage added any.
   */
  headers?: Record<string, string>;
  /**
   * The vendor-shaped usage of a stream whose body carries none, known without a provider call (a
   * cache hit's, stored with the stream); absent otherwise. The log reads it as it reads what a
   * provider reported outside the stream (UpstreamTry.reportedUsage).
   */
  reportedUsage?: unknown;
  /** Exactly one of these is set. */
  response: UpstreamResponse | null;
  error: GatewayError | null;
}

/** An Outcome that is the gateway's own error (a timeout, a refusal by a stage, …). */
export function errorOutcome(error: GatewayError, leafPath: string, provider: string, headers?: Record<string, string>): Outcome {
  return headers === undefined ? { status: error.status, leafPath, provider, retries: 0, response: null, error } : { status: error.status, leafPath, provider, retries: 0, headers, response: null, error };
}
