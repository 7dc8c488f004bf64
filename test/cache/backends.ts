// The response-cache backends every cache test runs against: this process's memory, and the Redis
// at 127.0.0.1:6379 (TEST_REDIS_URL overrides). Tests keep apart by using fresh keys and
// organisations, so parallel files and CI re-runs never see each other's entries.
import { Redis } from 'ioredis';
import { MemoryResponseCache } from '../../runtime/pipeline/cache/memory-cache.ts';
import { RedisResponseCache } from '../../runtime/pipeline/cache/redis-cache.ts';
import type { ResponseCache } from '../../runtime/pipeline/cache/response-cache.ts';
import { TEST_REDIS_URL } from '../limits/backends.ts';

export const CACHE_BACKENDS = ['memory', 'redis'] as const;
export type CacheBackend = (typeof CACHE_BACKENDS)[number];

export interface OpenedCache {
  cache: ResponseCache;
  close(): Promise<void>;
}

export async function openCache(backend: CacheBackend, maxBytes = 64 * 1024 * 1024): Promise<OpenedCache> {
  if (backend === 'memory') return { cache: new MemoryResponseCache(maxBytes), close: async () => {} };
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  return { cache: new RedisResponseCache(redis), close: async () => void (await redis.quit()) };
}
