// The breaker stores against one another: the Redis store's script applies the transitions
// nextBreakerState defines (the memory store applies that function itself), several processes on one
// Redis share their circuits (failures add up, an opened circuit is open everywhere, a process that
// starts later loads them), and a Redis that does not answer leaves each process counting alone.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { type BreakerEvent, CircuitBreakers, MemoryBreakerStore } from '../../runtime/router/breaker.ts';
import { RedisBreakerStore } from '../../runtime/router/redis-breaker-store.ts';
import type { GatewayLogger } from '../../runtime/core/log.ts';
import type { BreakerPlan } from '../../runtime/core/plan.ts';
import { TEST_REDIS_URL } from '../limits/backends.ts';
import { startPrivateRedis } from '../e2e/serve-processes.ts';

const opened: Array<{ redis: Redis; store: RedisBreakerStore }> = [];

function recordingLogger(): GatewayLogger & { events: string[] } {
  const events: string[] = [];
  return { events, info: (event) => events.push(event), warn: (event) => events.push(event), error: (event) => events.push(event) };
}

async function redisStore(url = TEST_REDIS_URL): Promise<RedisBreakerStore> {
  const redis = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => 50 });
  redis.on('error', () => {});
  const store = new RedisBreakerStore(redis, redis.duplicate(), recordingLogger());
  opened.push({ redis, store });
  await store.start();
  return store;
}

afterAll(async () => {
  for (const { redis, store } of opened) {
    store.stop();
    redis.disconnect();
  }
});

/** Until `check` holds (a message between processes takes a round trip), at most ~2 s. */
async function eventually(check: () => void | Promise<void>): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await check();
      return;
    } catch (error) {
      if (i >= 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

const events = fc.array(
  fc.oneof(
    fc.constant({ kind: 'success' as const, advance: 0 }),
    fc.record({ kind: fc.constant('failure' as const), advance: fc.integer({ min: 0, max: 40_000 }) }),
    fc.record({ kind: fc.constant('trial' as const), advance: fc.integer({ min: 0, max: 40_000 }) }),
  ),
  { minLength: 1, maxLength: 25 },
);

let pair: [RedisBreakerStore, RedisBreakerStore] | undefined;

describe('breaker stores', () => {
  test.prop([events, fc.integer({ min: 1, max: 4 }), fc.integer({ min: 30_000, max: 60_000 })], { numRuns: 40 })(
    'the Redis script applies the transitions of nextBreakerState, and another process takes the same state',
    async (sequence, failureThreshold, cooldownMs) => {
      // Two processes' stores, kept across runs (each run has a circuit of its own).
      pair ??= [await redisStore(), await redisStore()];
      const [a, b] = pair;
      const memory = new MemoryBreakerStore();
      const key = `conformance\u0000${randomUUID()}`;
      let now = 1_700_000_000_000;
      for (const step of sequence) {
        now += step.advance;
        const event: BreakerEvent = step.kind === 'success' ? { kind: 'success' } : step.kind === 'trial' ? { kind: 'trial', now } : { kind: 'failure', now, failureThreshold, cooldownMs };
        memory.apply(key, event);
        a.apply(key, event);
      }
      await a.settled();
      expect(a.get(key)).toEqual(memory.get(key));
      await eventually(() => expect(b.get(key)).toEqual(memory.get(key)));
    },
  );

  it('adds up failures seen by several processes: the circuit one opens is open in all, and a success anywhere closes it', async () => {
    const [a, b] = [await redisStore(), await redisStore()];
    const clock = { now: 1_700_000_000_000 };
    const plan: BreakerPlan = { failureThreshold: 4, cooldownMs: 30_000, failureStatusCodes: null };
    const [first, second] = [new CircuitBreakers(a, () => clock.now), new CircuitBreakers(b, () => clock.now)];
    const key = `shared\u0000${randomUUID()}`;
    for (const [breakers, store] of [[first, a], [second, b], [first, a]] as const) {
      breakers.record(key, plan, 503);
      await store.settled();
      await eventually(() => expect(a.get(key)?.consecutiveFailures).toBe(b.get(key)?.consecutiveFailures));
    }
    expect(first.isOpen(key, plan) || second.isOpen(key, plan)).toBe(false);
    second.record(key, plan, 'connection_error');
    await b.settled();
    await eventually(() => expect(first.isOpen(key, plan)).toBe(true));
    expect(second.isOpen(key, plan)).toBe(true);
    // A process that starts now loads the open circuit.
    const late = await redisStore();
    expect(new CircuitBreakers(late, () => clock.now).isOpen(key, plan)).toBe(true);
    // The cooldown over, one process's trial succeeds: closed everywhere.
    clock.now += 30_000;
    expect(first.canAttempt(key, plan)).toBe(true);
    first.record(key, plan, 200);
    await a.settled();
    await eventually(() => expect([second.isOpen(key, plan), b.get(key)?.consecutiveFailures, late.get(key)?.openUntil]).toEqual([false, 0, null]));
  });

  it('takes the shared states again after its Redis restarted empty (versions start over)', async () => {
    const server = await startPrivateRedis();
    try {
      const [a, b] = [await redisStore(server.url), await redisStore(server.url)];
      const key = `restart\u0000${randomUUID()}`;
      // Many changes before the restart: the copies hold a high version for this circuit.
      for (let i = 0; i < 200; i++) a.apply(key, { kind: 'failure', now: 1_700_000_000_000, failureThreshold: 500, cooldownMs: 30_000 });
      await a.settled();
      await eventually(() => expect(b.get(key)?.consecutiveFailures).toBe(200));
      await server.kill();
      await server.restart();
      // Both back (another circuit's change reaches the other copy), then one change of this circuit,
      // whose version after the restart is far below 200, must reach it too.
      const probe = `probe\u0000${randomUUID()}`;
      await eventually(async () => {
        a.apply(probe, { kind: 'failure', now: 1_700_000_000_000, failureThreshold: 500, cooldownMs: 30_000 });
        await a.settled();
        expect(b.get(probe)).toBeDefined();
      });
      a.apply(key, { kind: 'success' });
      await a.settled();
      await eventually(() => expect(b.get(key)?.consecutiveFailures).toBe(0));
    } finally {
      await server.kill();
    }
  });

  it('counts in the process when Redis does not answer, and says so once', async () => {
    const redis = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true, retryStrategy: () => null });
    redis.on('error', () => {});
    const logger = recordingLogger();
    let failures = 0;
    const store = new RedisBreakerStore(redis, redis.duplicate(), logger, () => failures++);
    const breakers = new CircuitBreakers(store, () => 1_700_000_000_000);
    const plan: BreakerPlan = { failureThreshold: 2, cooldownMs: 30_000, failureStatusCodes: null };
    breakers.record('down', plan, 500);
    breakers.record('down', plan, 500);
    expect(breakers.isOpen('down', plan)).toBe(true);
    await eventually(() => expect(failures).toBe(2));
    expect(logger.events.filter((e) => e === 'breakers_not_shared')).toHaveLength(1);
    store.stop();
    redis.disconnect();
  });
});
