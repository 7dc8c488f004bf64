// One conformance suite over every store of rewritten reasoning's originals (this process's memory,
// and Redis): an original comes back for its signature with the very text given out, and for nothing
// else (checked against a model, fast-check), and only to its organisation; a store again replaces; and what each store adds on its
// own: memory's bound and expiry, Redis's TTL and sharing between processes, and a Redis that does not
// answer, which loses nothing a request needs.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { Redis } from 'ioredis';
import { MemoryReasoningMemory, REASONING_TTL_MS, type ReasoningMemory, signatureKey } from '../../runtime/pipeline/guardrails/reasoning/reasoning-memory.ts';
import { RedisReasoningMemory } from '../../runtime/pipeline/guardrails/reasoning/redis-reasoning-memory.ts';
import type { LogFields } from '../../runtime/core/log.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { TEST_REDIS_URL } from '../limits/backends.ts';
import { freePort } from '../e2e/serve-processes.ts';

const BACKENDS = ['memory', 'redis'] as const;
/** The organisation the blocks were rewritten for. */
const ORG = 'org-reasoning-test';

describe.each(BACKENDS)('reasoning memory on %s', (backend) => {
  let redis: Redis | null = null;
  let memory: ReasoningMemory;
  beforeAll(() => {
    if (backend === 'memory') memory = new MemoryReasoningMemory(1 << 20);
    else {
      redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
      memory = new RedisReasoningMemory(redis, silentLogger);
    }
  });
  afterAll(async () => {
    await redis?.quit();
  });

  it('gives back the original of a block sent back with the text given out, and nothing for another text or signature', async () => {
    const signature = `sig-${randomUUID()}`;
    await memory.remember(ORG, [{ signature, original: 'write to jane@example.com', rewritten: 'write to [EMAIL]' }]);
    expect(await memory.recall(ORG, [{ signature, text: 'write to [EMAIL]' }])).toEqual(new Map([[signature, 'write to jane@example.com']]));
    expect((await memory.recall(ORG, [{ signature, text: 'write to [EMAIL] (edited)' }])).size).toBe(0);
    expect((await memory.recall(ORG, [{ signature: `sig-${randomUUID()}`, text: 'write to [EMAIL]' }])).size).toBe(0);
  });

  it('gives an original back only to the organisation it was rewritten for', async () => {
    const signature = `sig-${randomUUID()}`;
    await memory.remember(ORG, [{ signature, original: 'O', rewritten: 'R' }]);
    expect((await memory.recall('another-org', [{ signature, text: 'R' }])).size).toBe(0);
    expect((await memory.recall(ORG, [{ signature, text: 'R' }])).get(signature)).toBe('O');
  });

  it('keeps the latest original stored under a signature', async () => {
    const signature = `sig-${randomUUID()}`;
    await memory.remember(ORG, [{ signature, original: 'first', rewritten: 'r1' }]);
    await memory.remember(ORG, [{ signature, original: 'second', rewritten: 'r2' }]);
    expect((await memory.recall(ORG, [{ signature, text: 'r1' }])).size).toBe(0);
    expect((await memory.recall(ORG, [{ signature, text: 'r2' }])).get(signature)).toBe('second');
  });

  const texts = fc.string({ maxLength: 30, unit: 'binary' });
  const stored = fc.uniqueArray(fc.record({ signature: fc.string({ minLength: 1, maxLength: 20 }), original: texts, rewritten: texts }), { selector: (b) => b.signature, maxLength: 6 });
  test.prop([stored, fc.array(fc.tuple(fc.nat(), fc.boolean(), texts), { maxLength: 8 })], { numRuns: 40 })('recalls exactly what a model of it says', async (blocks, asks) => {
    // Fresh signatures per run: Redis is shared by every run and every file.
    const run = randomUUID();
    const kept = blocks.map((b) => ({ ...b, signature: `${run}:${b.signature}` }));
    await memory.remember(ORG, kept);
    const sent = asks.map(([i, same, other]) => {
      const block = kept[i % Math.max(1, kept.length)];
      return block === undefined ? { signature: `${run}:none`, text: other } : { signature: block.signature, text: same ? block.rewritten : other };
    });
    const expected = new Map<string, string>();
    for (const ask of sent) {
      const block = kept.find((b) => b.signature === ask.signature);
      if (block !== undefined && block.rewritten === ask.text) expected.set(ask.signature, block.original);
    }
    expect(await memory.recall(ORG, sent)).toEqual(expected);
  });

  it('takes nothing to do for no blocks', async () => {
    await memory.remember(ORG, []);
    expect((await memory.recall(ORG, [])).size).toBe(0);
  });
});

describe('reasoning memory in this process', () => {
  it('forgets an original a day after its last use; a use keeps it a day longer', async () => {
    let now = 1_790_000_000_000;
    const memory = new MemoryReasoningMemory(1 << 20, () => now);
    await memory.remember(ORG, [{ signature: 'a', original: 'A', rewritten: 'a' }, { signature: 'b', original: 'B', rewritten: 'b' }]);
    now += REASONING_TTL_MS - 1000;
    expect((await memory.recall(ORG, [{ signature: 'a', text: 'a' }])).get('a')).toBe('A');
    now += 2000;
    expect((await memory.recall(ORG, [{ signature: 'a', text: 'a' }, { signature: 'b', text: 'b' }]))).toEqual(new Map([['a', 'A']]));
    expect(memory.bytes).toBeLessThan(200);
  });

  it('is bounded by bytes: the least recently used originals go first, one larger than the bound is not kept', async () => {
    const big = 'x'.repeat(1000);
    const memory = new MemoryReasoningMemory(3 * 2 * 1100);
    await memory.remember(ORG, ['1', '2', '3'].map((signature) => ({ signature, original: big + signature, rewritten: signature })));
    // 1 is used: 2 is now the least recently used.
    expect((await memory.recall(ORG, [{ signature: '1', text: '1' }])).size).toBe(1);
    await memory.remember(ORG, [{ signature: '4', original: big + '4', rewritten: '4' }]);
    const left = await memory.recall(ORG, ['1', '2', '3', '4'].map((signature) => ({ signature, text: signature })));
    expect([...left.keys()].sort()).toEqual(['1', '3', '4']);
    expect(memory.bytes).toBeLessThanOrEqual(3 * 2 * 1100);
    await memory.remember(ORG, [{ signature: 'huge', original: 'y'.repeat(10_000), rewritten: 'h' }]);
    expect((await memory.recall(ORG, [{ signature: 'huge', text: 'h' }])).size).toBe(0);
    expect((await memory.recall(ORG, [{ signature: '4', text: '4' }])).size).toBe(1);
  });
});

describe('reasoning memory in Redis', () => {
  it('is shared: what one process remembered another recalls; kept a day, a use extending it', async () => {
    const [a, b] = [new Redis(TEST_REDIS_URL), new Redis(TEST_REDIS_URL)];
    try {
      const signature = `sig-${randomUUID()}`;
      await new RedisReasoningMemory(a, silentLogger).remember(ORG, [{ signature, original: 'O', rewritten: 'R' }]);
      const key = `gw:reasoning:${signatureKey(ORG, signature)}`;
      await a.pexpire(key, 5000);
      expect((await new RedisReasoningMemory(b, silentLogger).recall(ORG, [{ signature, text: 'R' }])).get(signature)).toBe('O');
      const ttl = await a.pttl(key);
      expect(ttl).toBeGreaterThan(REASONING_TTL_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(REASONING_TTL_MS);
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
    const memory = new RedisReasoningMemory(redis, { ...silentLogger, warn: (event: string, fields: LogFields) => warned.push([event, fields]) });
    await expect(memory.remember(ORG, [{ signature: 's', original: 'O', rewritten: 'R' }])).resolves.toBeUndefined();
    expect((await memory.recall(ORG, [{ signature: 's', text: 'R' }])).size).toBe(0);
    expect(warned.map(([event]) => event)).toEqual(['reasoning_memory_unavailable']);
    expect(warned[0]![1]).toMatchObject({ operation: 'remember' });
    redis.disconnect();
  });
});
