// The turn-memory stores every turn-memory test runs against: this process's memory, and the Redis at
// 127.0.0.1:6379 (TEST_REDIS_URL overrides). Tests keep apart by fresh keys.
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { silentLogger } from '../../runtime/core/log.ts';
import { RedisTurnMemory } from '../../runtime/pipeline/turn-memory/redis-turn-memory.ts';
import { MemoryTurnMemory, type TurnMemory } from '../../runtime/pipeline/turn-memory/turn-memory.ts';
import { TEST_REDIS_URL } from '../limits/backends.ts';

export const TURN_BACKENDS = ['memory', 'redis'] as const;

/** A store on `backend`, and how to close it. */
export function openTurnMemory(backend: (typeof TURN_BACKENDS)[number]): { memory: TurnMemory; close(): Promise<void> } {
  if (backend === 'memory') return { memory: new MemoryTurnMemory(1 << 20), close: async () => {} };
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  return { memory: new RedisTurnMemory(redis, silentLogger), close: async () => void (await redis.quit()) };
}

/** A store on `backend` for the enclosing suite (opened before its tests, closed after): call the getter in a test. */
export function suiteTurnMemory(backend: (typeof TURN_BACKENDS)[number]): () => TurnMemory {
  let opened: ReturnType<typeof openTurnMemory> | null = null;
  beforeAll(() => {
    opened = openTurnMemory(backend);
  });
  afterAll(() => opened?.close());
  return () => opened!.memory;
}
