// The response cache's storage, one interface over the process's memory (default) and Redis
// (REDIS_URL, shared by every process). One conformance suite runs against both
// (test/cache/response-cache.conformance.test.ts).
import type { CachedAnswer } from './cached-answer.ts';

/** What an entry can be purged by (DELETE /v1/cache): its owner's organisation, and optionally a namespace and a config. */
export interface CacheTags {
  organisation: string;
  /** x-gateway-cache-namespace of the request that stored it. */
  namespace: string | null;
  /** The saved config it was answered through; null for inline and header-built routes. */
  configId: string | null;
}

export interface CachePurge {
  organisation: string;
  /** Only entries stored under this namespace; absent: any. */
  namespace?: string;
  /** Only entries stored through this saved config; absent: any. */
  configId?: string;
}

export interface ResponseCache {
  /** The live entry under `key`; null when none, expired, or the backend did not answer. */
  get(key: string): Promise<CachedAnswer | null>;
  /** Stores (or replaces) the entry for `ttlMs` milliseconds. */
  set(key: string, answer: CachedAnswer, ttlMs: number, tags: CacheTags): Promise<void>;
  /** Deletes the matching entries; resolves to how many there were. */
  purge(filter: CachePurge): Promise<number>;
}
