// Server settings of the response cache, read once at start (docs/cache.md lists them).

export interface CacheSettings {
  /** Lifetime of an entry whose config gives no max_age (GATEWAY_CACHE_DEFAULT_MAX_AGE, seconds; default 24 h). */
  defaultMaxAgeMs: number;
  /** Bytes the in-memory cache holds at most (GATEWAY_CACHE_MAX_BYTES; default 256 MiB); least recently used entries go first. */
  maxBytes: number;
  /** Answers larger than this are not stored (a quarter of maxBytes, at most 8 MiB). */
  maxEntryBytes: number;
}

export const DEFAULT_CACHE_MAX_AGE_SECONDS = 24 * 60 * 60;
export const DEFAULT_CACHE_MAX_BYTES = 256 * 1024 * 1024;
const MAX_ENTRY_BYTES = 8 * 1024 * 1024;

export function cacheSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): CacheSettings {
  const maxAge = positiveInteger(env, 'GATEWAY_CACHE_DEFAULT_MAX_AGE', DEFAULT_CACHE_MAX_AGE_SECONDS);
  const maxBytes = positiveInteger(env, 'GATEWAY_CACHE_MAX_BYTES', DEFAULT_CACHE_MAX_BYTES);
  return { defaultMaxAgeMs: maxAge * 1000, maxBytes, maxEntryBytes: Math.min(MAX_ENTRY_BYTES, Math.floor(maxBytes / 4)) };
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number, not "${raw}".`);
  return value;
}
