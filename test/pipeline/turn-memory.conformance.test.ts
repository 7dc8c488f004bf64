// One conformance suite over every store of what the gateway keeps between a conversation's turns
// (this process's memory, and Redis): a value comes back for its key in its organisation and for
// nothing else (checked against a model, fast-check); a keep again replaces; and what each store adds
// on its own: memory's bound and expiry, Redis's TTL and sharing between processes, and a Redis that
// does not answer, which loses nothing a request needs.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { Redis } from 'ioredis';
import { MemoryTurnMemory, TURN_MEMORY_TTL_MS, type TurnMemory, turnKey } from '../../runtime/pipeline/turn-memory/turn-memory.ts';
import { RedisTurnMemory } from '../../runtime/pipeline/turn-memory/redis-turn-memory.ts';
import type { LogFields } from '../../runtime/core/log.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { TEST_REDIS_URL } from '../limits/backends.ts';
import { freePort } from '../e2e/serve-processes.ts';
import { suiteTurnMemory, TURN_BACKENDS } from './turn-memory-backends.ts';

/** The organisation the values were kept for. */
const ORG = 'org-turn-memory-test';

describe.each(TURN_BACKENDS)('turn memory on %s', (backend) => {
  const store = suiteTurnMemory(backend);
  let memory: TurnMemory;
  beforeEach(() => {
    memory = store();
  });

  it('finds what was kept under its key, and nothing under another key or for another organisation', async () => {
    const key = `k-${randomUUID()}`;
    await memory.keep(ORG, [{ key, value: 'write to jane@example.com' }]);
    expect(await memory.find(ORG, [key])).toEqual(new Map([[key, 'write to jane@example.com']]));
    expect((await memory.find(ORG, [`k-${randomUUID()}`])).size).toBe(0);
    expect((await memory.find('another-org', [key])).size).toBe(0);
  });

  it('keeps the latest value kept under a key', async () => {
    const key = `k-${randomUUID()}`;
    await memory.keep(ORG, [{ key, value: 'first' }]);
    await memory.keep(ORG, [{ key, value: 'second' }]);
    expect((await memory.find(ORG, [key])).get(key)).toBe('second');
  });

  const values = fc.string({ maxLength: 30, unit: 'binary' });
  test.prop([fc.uniqueArray(fc.record({ key: fc.string({ minLength: 1, maxLength: 20 }), value: values }), { selector: (e) => e.key, maxLength: 6 }), fc.array(fc.string({ maxLength: 20 }), { maxLength: 8 })], { numRuns: 40 })('finds exactly what a model of it says', async (entries, asked) => {
    // Fresh keys per run: Redis is shared by every run and every file.
    const run = randomUUID();
    const kept = entries.map((e) => ({ ...e, key: `${run}:${e.key}` }));
    await memory.keep(ORG, kept);
    const keys = [...asked.map((k) => `${run}:${k}`), ...kept.slice(0, 2).map((e) => e.key)];
    const expected = new Map(kept.filter((e) => keys.includes(e.key)).map((e) => [e.key, e.value]));
    expect(await memory.find(ORG, keys)).toEqual(expected);
  });

  it('takes nothing to do for no entries', async () => {
    await memory.keep(ORG, []);
    expect((await memory.find(ORG, [])).size).toBe(0);
  });
});

describe('turn memory in this process', () => {
  it('forgets a value a day after its last use; a use keeps it a day longer', async () => {
    let now = 1_790_000_000_000;
    const memory = new MemoryTurnMemory(1 << 20, () => now);
    await memory.keep(ORG, [{ key: 'a', value: 'A' }, { key: 'b', value: 'B' }]);
    now += TURN_MEMORY_TTL_MS - 1000;
    expect((await memory.find(ORG, ['a'])).get('a')).toBe('A');
    now += 2000;
    expect(await memory.find(ORG, ['a', 'b'])).toEqual(new Map([['a', 'A']]));
    expect(memory.bytes).toBeLessThan(200);
  });

  it('is bounded by bytes: the least recently used values go first, one larger than the bound is not kept', async () => {
    const big = 'x'.repeat(1000);
    const memory = new MemoryTurnMemory(3 * 2 * 1100);
    await memory.keep(ORG, ['1', '2', '3'].map((key) => ({ key, value: big + key })));
    // 1 is used: 2 is now the least recently used.
    expect((await memory.find(ORG, ['1'])).size).toBe(1);
    await memory.keep(ORG, [{ key: '4', value: big + '4' }]);
    expect([...(await memory.find(ORG, ['1', '2', '3', '4'])).keys()].sort()).toEqual(['1', '3', '4']);
    expect(memory.bytes).toBeLessThanOrEqual(3 * 2 * 1100);
    await memory.keep(ORG, [{ key: 'huge', value: 'y'.repeat(10_000) }]);
    expect((await memory.find(ORG, ['huge'])).size).toBe(0);
    expect((await memory.find(ORG, ['4'])).size).toBe(1);
  });
});

describe('turn memory in Redis', () => {
  it('is shared: what one process kept another finds; kept a day, a use extending it', async () => {
    const [a, b] = [new Redis(TEST_REDIS_URL), new Redis(TEST_REDIS_URL)];
    try {
      const key = `k-${randomUUID()}`;
      await new RedisTurnMemory(a, silentLogger).keep(ORG, [{ key, value: 'V' }]);
      const id = `gw:turn:${turnKey(ORG, key)}`;
      await a.pexpire(id, 5000);
      expect((await new RedisTurnMemory(b, silentLogger).find(ORG, [key])).get(key)).toBe('V');
      const ttl = await a.pttl(id);
      expect(ttl).toBeGreaterThan(TURN_MEMORY_TTL_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(TURN_MEMORY_TTL_MS);
    } finally {
      a.disconnect();
      b.disconnect();
    }
  });

  it('when Redis does not answer: nothing is kept or found, no request fails, the outage logged once', async () => {
    const port = await freePort();
    const redis = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true, retryStrategy: () => null });
    redis.on('error', () => {});
    const warned: Array<[string, LogFields]> = [];
    const memory = new RedisTurnMemory(redis, { ...silentLogger, warn: (event: string, fields: LogFields) => warned.push([event, fields]) });
    await expect(memory.keep(ORG, [{ key: 's', value: 'V' }])).resolves.toBeUndefined();
    expect((await memory.find(ORG, ['s'])).size).toBe(0);
    expect(warned.map(([event]) => event)).toEqual(['turn_memory_unavailable']);
    expect(warned[0]![1]).toMatchObject({ operation: 'keep' });
    redis.disconnect();
  });
});
