// Data-plane settings, read from the environment once at start.
import { envInteger } from '../core/env-integer.ts';

export interface InferenceSettings {
  /** Backoff base for retries (GATEWAY_RETRY_BASE_MS); tests set it near zero. */
  retryBaseMs: number;
  /** Cap on any single retry wait, jittered or asked for by retry-after (GATEWAY_RETRY_MAX_MS). */
  retryMaxMs: number;
  /** Distinct inline configs kept compiled (GATEWAY_INLINE_CONFIG_CACHE). */
  inlineConfigCacheSize: number;
}

export function inferenceSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): InferenceSettings {
  return {
    retryBaseMs: nonNegative(env.GATEWAY_RETRY_BASE_MS, 1000, 'GATEWAY_RETRY_BASE_MS'),
    retryMaxMs: nonNegative(env.GATEWAY_RETRY_MAX_MS, 30_000, 'GATEWAY_RETRY_MAX_MS'),
    inlineConfigCacheSize: envInteger(env, 'GATEWAY_INLINE_CONFIG_CACHE', 1000, 1),
  };
}

function nonNegative(raw: string | undefined, fallback: number, name: string): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, not ${JSON.stringify(raw)}`);
  return value;
}
