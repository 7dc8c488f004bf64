// One conformance suite over every response-cache backend (memory and Redis): an answer comes back
// byte for byte, entries expire, a store replaces, and a purge deletes exactly the entries its
// filter names within the caller's organisation, no more (checked against a model, fast-check).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { type CachedAnswer, decodeAnswer } from '../../runtime/pipeline/cache/cached-answer.ts';
import type { CacheTags, ResponseCache } from '../../runtime/pipeline/cache/response-cache.ts';
import { CACHE_BACKENDS, openCache, type OpenedCache } from './backends.ts';
import { Redis } from 'ioredis';
import { RedisResponseCache, tagKey } from '../../runtime/pipeline/cache/redis-cache.ts';
import { TEST_REDIS_URL } from '../limits/backends.ts';

const MINUTE = 60_000;

function answer(body: Buffer | string, extra: Partial<CachedAnswer> = {}): CachedAnswer {
  return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(body), storedAt: 1_790_000_000_000, leafPath: 'config', provider: 'openai', ...extra };
}

const answers = fc.record({
  status: fc.integer({ min: 200, max: 299 }),
  headers: fc.dictionary(fc.constantFrom('content-type', 'content-encoding', 'content-language'), fc.string({ maxLength: 40 })),
  body: fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)),
  storedAt: fc.integer({ min: 0, max: 4_000_000_000_000 }),
  leafPath: fc.constantFrom('config', 'config.targets[1]', 'config.targets[0].targets[2]'),
  provider: fc.constantFrom('openai', 'anthropic', ''),
  // A stored stream's usage, reported outside it; absent on most.
  usage: fc.option(fc.record({ prompt_tokens: fc.nat(10_000), completion_tokens: fc.nat(10_000), total_tokens: fc.nat(20_000) }), { nil: undefined }),
  // The signed thinking a translation handed over with the answer's tool calls; absent on most.
  kept: fc.option(fc.array(fc.uniqueArray(fc.stringMatching(/^toolu_[a-z0-9]{1,8}$/), { minLength: 1, maxLength: 3 }).chain((ids) => fc.record({
    toolCallIds: fc.constant(ids),
    withCall: fc.tuple(...ids.map(() => fc.array(fc.record({ type: fc.constant('thinking'), thinking: fc.string({ maxLength: 30 }), signature: fc.base64String({ maxLength: 24 }) }), { maxLength: 2 }))),
  })), { minLength: 1, maxLength: 2 }), { nil: undefined }),
}, { requiredKeys: ['status', 'headers', 'body', 'storedAt', 'leafPath', 'provider'] });

describe.each(CACHE_BACKENDS)('response cache on %s', (backend) => {
  let opened: OpenedCache;
  let cache: ResponseCache;
  beforeAll(async () => {
    opened = await openCache(backend);
    cache = opened.cache;
  });
  afterAll(() => opened.close());

  it('has nothing under a key never stored', async () => {
    expect(await cache.get(randomUUID())).toBeNull();
  });

  test.prop([answers], { numRuns: 40 })('gives back what was stored, byte for byte', async (stored) => {
    const key = randomUUID();
    await cache.set(key, stored, MINUTE, { organisation: randomUUID(), namespace: null, configId: null });
    const got = await cache.get(key);
    expect(got).not.toBeNull();
    expect({ ...got!, body: Buffer.from(got!.body) }).toEqual(stored);
  });

  it('replaces an entry stored again under the same key', async () => {
    const key = randomUUID();
    const tags = { organisation: randomUUID(), namespace: null, configId: null };
    await cache.set(key, answer('first'), MINUTE, tags);
    await cache.set(key, answer('second'), MINUTE, tags);
    expect((await cache.get(key))!.body.toString()).toBe('second');
  });

  it('forgets an entry once its time is up', async () => {
    const key = randomUUID();
    await cache.set(key, answer('brief'), 60, { organisation: randomUUID(), namespace: null, configId: null });
    expect(await cache.get(key)).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await cache.get(key)).toBeNull();
  });

  const entries = fc.array(fc.record({ org: fc.constantFrom(0, 1), namespace: fc.constantFrom(null, 'a', 'b'), configId: fc.constantFrom(null, 'x', 'y') }), { maxLength: 12 });
  const filters = fc.record({ org: fc.constantFrom(0, 1), namespace: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }), configId: fc.option(fc.constantFrom('x', 'y'), { nil: undefined }) });

  test.prop([entries, filters], { numRuns: 30 })('purges exactly the entries its filter names, within one organisation', async (stored, filter) => {
    const orgs = [randomUUID(), randomUUID()];
    const keys = stored.map(() => randomUUID());
    for (let i = 0; i < stored.length; i++) {
      const tags: CacheTags = { organisation: orgs[stored[i].org], namespace: stored[i].namespace, configId: stored[i].configId };
      await cache.set(keys[i], answer(`entry ${i}`), MINUTE, tags);
    }
    const named = (e: (typeof stored)[number]) => e.org === filter.org && (filter.namespace === undefined || e.namespace === filter.namespace) && (filter.configId === undefined || e.configId === filter.configId);
    const purge: { organisation: string; namespace?: string; configId?: string } = { organisation: orgs[filter.org] };
    if (filter.namespace !== undefined) purge.namespace = filter.namespace;
    if (filter.configId !== undefined) purge.configId = filter.configId;
    expect(await cache.purge(purge)).toBe(stored.filter(named).length);
    for (let i = 0; i < stored.length; i++) expect(await cache.get(keys[i]) === null, `entry ${i}`).toBe(named(stored[i]));
  });
});

/**
 * What an entry of `answer()` costs the in-memory cache: its body, 256 for the objects, and the text
 * it keeps: its key, the head (`content-type: application/json`, `config`, `openai`) and the tags.
 */
function entryCost(key: string, bodyLength: number, tagText = 'o'): number {
  return bodyLength + 256 + key.length + 'content-type'.length + 'application/json'.length + 'config'.length + 'openai'.length + tagText.length;
}

describe('response cache in memory', () => {
  it('holds at most its bytes, evicting the least recently used first', async () => {
    const { cache } = await openCache('memory', 3 * entryCost('a', 1000));
    const tags = { organisation: 'o', namespace: null, configId: null };
    const body = 'x'.repeat(1000);
    await cache.set('a', answer(body), MINUTE, tags);
    await cache.set('b', answer(body), MINUTE, tags);
    await cache.set('c', answer(body), MINUTE, tags);
    await cache.get('a');
    await cache.set('d', answer(body), MINUTE, tags);
    expect(await cache.get('b')).toBeNull();
    for (const key of ['a', 'c', 'd']) expect(await cache.get(key), key).not.toBeNull();
    // An answer larger than the whole cache is not kept (and evicts nothing).
    await cache.set('huge', answer('y'.repeat(10_000)), MINUTE, tags);
    expect(await cache.get('huge')).toBeNull();
    expect(await cache.get('a')).not.toBeNull();
  });

  it('counts what an entry keeps besides its body: a long namespace or long content headers are not free', async () => {
    const { cache } = await openCache('memory', 1_000_000);
    const namespace = 'n'.repeat(60_000);
    for (let i = 0; i < 100; i++) await cache.set(`ns${i}`, answer('{}'), MINUTE, { organisation: 'o', namespace: `${namespace}${i}`, configId: null });
    // Each entry keeps ~60 KB of namespace: about sixteen fit in 1 MB, not all hundred.
    const kept = (await Promise.all(Array.from({ length: 100 }, (_, i) => cache.get(`ns${i}`)))).filter((a) => a !== null).length;
    expect(kept).toBeLessThanOrEqual(16);
    expect(kept).toBeGreaterThan(10);
    const headers: Record<string, string> = {};
    for (let h = 0; h < 100; h++) headers[`content-x-${h}`] = 'v'.repeat(150);
    for (let i = 0; i < 100; i++) await cache.set(`h${i}`, answer('{}', { headers }), MINUTE, { organisation: 'o', namespace: null, configId: null });
    const withHeaders = (await Promise.all(Array.from({ length: 100 }, (_, i) => cache.get(`h${i}`)))).filter((a) => a !== null).length;
    expect(withHeaders).toBeLessThan(100);
  });

  // Model: an array, least recently used first, and the byte bound (an entry costs entryCost).
  const op = fc.oneof(
    fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 7 }), size: fc.integer({ min: 0, max: 900 }) }),
    fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 7 }) }),
  );
  test.prop([fc.array(op, { maxLength: 80 })], { numRuns: 200 })('keeps exactly what a least-recently-used list within the bytes keeps', async (ops) => {
    const max = 3000;
    const { cache } = await openCache('memory', max);
    const tags = { organisation: 'o', namespace: null, configId: null };
    let model: Array<{ key: string; bytes: number }> = [];
    for (const o of ops) {
      const key = `k${o.key}`;
      const at = model.findIndex((e) => e.key === key);
      if (o.kind === 'get') {
        expect((await cache.get(key)) !== null, `get ${key}`).toBe(at >= 0);
        if (at >= 0) model.push(...model.splice(at, 1));
        continue;
      }
      await cache.set(key, answer('z'.repeat(o.size)), MINUTE, tags);
      if (at >= 0) model.splice(at, 1);
      model.push({ key, bytes: entryCost(key, o.size) });
      while (model.reduce((n, e) => n + e.bytes, 0) > max) model = model.slice(1);
    }
    for (let k = 0; k < 8; k++) expect((await cache.get(`k${k}`)) !== null, `k${k} at the end`).toBe(model.some((e) => e.key === `k${k}`));
  });
});

describe('stored answer bytes', () => {
  test.prop([fc.uint8Array({ maxLength: 300 })], { numRuns: 200 })('anything that is not an encoded answer decodes to nothing, never throws', (bytes) => {
    const decoded = decodeAnswer(Buffer.from(bytes));
    if (decoded !== null) expect(typeof decoded.status).toBe('number');
  });
});

describe('response cache in Redis', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await redis?.quit();
  });

  it('keeps a tag set to about its live entries: each store drops the members whose entry expired', async () => {
    const cache = new RedisResponseCache(redis);
    const organisation = randomUUID();
    for (let i = 0; i < 20; i++) await cache.set(randomUUID(), answer(`short ${i}`), 40, { organisation, namespace: 'n', configId: null });
    expect(await redis.zcard(tagKey('o', organisation))).toBe(20);
    await new Promise((resolve) => setTimeout(resolve, 80));
    await cache.set(randomUUID(), answer('long'), MINUTE, { organisation, namespace: 'n', configId: null });
    expect(await redis.zcard(tagKey('o', organisation))).toBe(1);
    expect(await redis.zcard(tagKey('n', organisation, 'n'))).toBe(1);
  });

  it('purges many entries a slice at a time, the ones every filter names and no others', async () => {
    const cache = new RedisResponseCache(redis, { purgeBatch: 7 });
    const organisation = randomUUID();
    const keys = Array.from({ length: 60 }, () => randomUUID());
    // Every third entry in namespace a with config x; the rest in a with y, or in b.
    const tagsOf = (i: number): CacheTags => ({ organisation, namespace: i % 3 === 2 ? 'b' : 'a', configId: i % 3 === 0 ? 'x' : 'y' });
    for (const [i, key] of keys.entries()) await cache.set(key, answer(`entry ${i}`), MINUTE, tagsOf(i));
    expect(await cache.purge({ organisation, namespace: 'a', configId: 'x' })).toBe(20);
    for (const [i, key] of keys.entries()) expect((await cache.get(key)) === null, `entry ${i}`).toBe(i % 3 === 0);
    expect(await cache.purge({ organisation })).toBe(40);
    expect(await redis.zcard(tagKey('o', organisation))).toBe(0);
  });
});
