// Server settings of the response cache, read once at start (docs/cache.md lists them).
import { envInteger } from '../../core/env-integer.ts';

export interface CacheSettings {
  /** Lifetime of an entry whose config gives no max_age (GATEWAY_CACHE_DEFAULT_MAX_AGE, seconds; default 24 h). */
  defaultMaxAgeMs: number;
  /** Bytes the in-memory cache holds at most (GATEWAY_CACHE_MAX_BYTES; default 256 MiB); least recently used entries go first. */
  maxBytes: number;
  /** Answers larger than this are not stored (a quarter of maxBytes, at most 8 MiB). */
  maxEntryBytes: number;
  /** The semantic cache's settings; null when GATEWAY_SEMANTIC_CACHE_EMBEDDINGS is not set (then no route may use it). */
  semantic: SemanticSettings | null;
}

export interface SemanticSettings {
  /** The embeddings route: a saved config id or an inline config (GATEWAY_SEMANTIC_CACHE_EMBEDDINGS). */
  embeddings: string;
  /** The embedding model sent on it (GATEWAY_SEMANTIC_CACHE_MODEL). */
  model: string;
  /** Cosine similarity a match needs (GATEWAY_SEMANTIC_CACHE_THRESHOLD, default 0.95). */
  threshold: number;
  /** Vectors the index keeps at most (GATEWAY_SEMANTIC_CACHE_MAX_ENTRIES, default 100000); the oldest go first. */
  maxEntries: number;
}

export const DEFAULT_SEMANTIC_THRESHOLD = 0.95;
export const DEFAULT_SEMANTIC_MAX_ENTRIES = 100_000;

export const DEFAULT_CACHE_MAX_AGE_SECONDS = 24 * 60 * 60;
export const DEFAULT_CACHE_MAX_BYTES = 256 * 1024 * 1024;
/** The longest lifetime, in seconds (schema/config.json's cache.max_age maximum, about 68 years). */
export const MAX_CACHE_AGE_SECONDS = 2 ** 31 - 1;
const MAX_ENTRY_BYTES = 8 * 1024 * 1024;

export function cacheSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): CacheSettings {
  // As a config's max_age: its milliseconds stay exact, which a Redis expiry needs.
  const maxAge = envInteger(env, 'GATEWAY_CACHE_DEFAULT_MAX_AGE', DEFAULT_CACHE_MAX_AGE_SECONDS, 1, MAX_CACHE_AGE_SECONDS);
  const maxBytes = envInteger(env, 'GATEWAY_CACHE_MAX_BYTES', DEFAULT_CACHE_MAX_BYTES, 1);
  return { defaultMaxAgeMs: maxAge * 1000, maxBytes, maxEntryBytes: Math.min(MAX_ENTRY_BYTES, Math.floor(maxBytes / 4)), semantic: semanticSettingsFromEnv(env) };
}

function semanticSettingsFromEnv(env: NodeJS.ProcessEnv): SemanticSettings | null {
  const embeddings = env.GATEWAY_SEMANTIC_CACHE_EMBEDDINGS?.trim();
  if (embeddings === undefined || embeddings === '') return null;
  const model = env.GATEWAY_SEMANTIC_CACHE_MODEL?.trim();
  if (model === undefined || model === '') throw new Error('GATEWAY_SEMANTIC_CACHE_EMBEDDINGS is set, so GATEWAY_SEMANTIC_CACHE_MODEL must name the embedding model to send on it.');
  const rawThreshold = env.GATEWAY_SEMANTIC_CACHE_THRESHOLD?.trim();
  const threshold = rawThreshold === undefined || rawThreshold === '' ? DEFAULT_SEMANTIC_THRESHOLD : Number(rawThreshold);
  if (!(threshold > 0 && threshold <= 1)) throw new Error(`GATEWAY_SEMANTIC_CACHE_THRESHOLD must be a number above 0 and at most 1, not "${rawThreshold}".`);
  return { embeddings, model, threshold, maxEntries: envInteger(env, 'GATEWAY_SEMANTIC_CACHE_MAX_ENTRIES', DEFAULT_SEMANTIC_MAX_ENTRIES, 1) };
}
