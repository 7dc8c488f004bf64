// The limit-counter backends every counter test runs against: this process's memory, and the Redis
// at 127.0.0.1:6379 (TEST_REDIS_URL overrides) that every machine running the tests has. Tests keep
// apart by using fresh policy ids, so parallel files and CI re-runs never count each other's requests.
import { Redis } from 'ioredis';
import type { LimitCounters } from '../../runtime/pipeline/limits/counters.ts';
import { MemoryCounters } from '../../runtime/pipeline/limits/memory-counters.ts';
import { RedisCounters } from '../../runtime/pipeline/limits/redis-counters.ts';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const COUNTER_BACKENDS = ['memory', 'redis'] as const;
export type CounterBackend = (typeof COUNTER_BACKENDS)[number];

export interface OpenedCounters {
  counters: LimitCounters;
  close(): Promise<void>;
}

/** `maxGroups`: GATEWAY_LIMIT_MAX_GROUPS (the default when left out). */
export async function openCounters(backend: CounterBackend, options: { maxGroups?: number } = {}): Promise<OpenedCounters> {
  if (backend === 'memory') {
    const counters = new MemoryCounters({ maxGroups: options.maxGroups });
    return { counters, close: () => counters.close() };
  }
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  return { counters: new RedisCounters(redis, options.maxGroups), close: async () => void (await redis.quit()) };
}
