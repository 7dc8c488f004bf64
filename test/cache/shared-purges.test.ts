// A purge of the in-memory response caches reaches every process sharing the store (SQLite and
// PostgreSQL): two stores opened on one location stand for two processes, each with its own memory
// cache and its own change feed, as `gateway serve` wires them without Redis.
import { randomUUID } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { purgeEveryProcess, type CachePurger } from '../../runtime/api/cache/shared-purges.ts';
import { GatewayError } from '../../runtime/core/errors.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import type { CachedAnswer } from '../../runtime/pipeline/cache/cached-answer.ts';
import { MemoryResponseCache } from '../../runtime/pipeline/cache/memory-cache.ts';
import type { CachePurge, CacheTags } from '../../runtime/pipeline/cache/response-cache.ts';
import { type AnnouncedPurge, decodePurge, encodePurge } from '../../runtime/store/cache-purge-log.ts';
import type { GatewayStore } from '../../runtime/store/open-store.ts';
import { StoreUnavailableError } from '../../runtime/store/sql/sql-database.ts';
import { BACKENDS, createLocation, openRawDatabase, type StoreLocation } from '../store/backends.ts';

const MINUTE = 60_000;
const ANSWER: CachedAnswer = { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('{}'), storedAt: 1_790_000_000_000, leafPath: 'config', provider: 'openai' };

interface Process {
  store: GatewayStore;
  cache: MemoryResponseCache;
  purge: CachePurger;
}

const open: GatewayStore[] = [];
const locations: StoreLocation[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  await Promise.all(locations.splice(0).map((l) => l.remove()));
});

async function twoProcesses(backend: 'sqlite' | 'postgres'): Promise<[Process, Process, StoreLocation]> {
  const location = await createLocation(backend);
  locations.push(location);
  const processes: Process[] = [];
  for (let i = 0; i < 2; i++) {
    const store = await location.open();
    open.push(store);
    const cache = new MemoryResponseCache(1 << 20);
    processes.push({ store, cache, purge: await purgeEveryProcess(cache, store.cachePurges, store.changes, silentLogger) });
  }
  return [processes[0]!, processes[1]!, location];
}

/** Stores one entry a tag set in the cache, its key naming the tags. */
async function fill(cache: MemoryResponseCache, tagSets: readonly CacheTags[]): Promise<void> {
  for (const tags of tagSets) await cache.set(keyOf(tags), ANSWER, MINUTE, tags);
}

function keyOf(tags: CacheTags): string {
  return `${tags.organisation}|${tags.namespace ?? '-'}|${tags.configId ?? '-'}`;
}

async function held(cache: MemoryResponseCache, tagSets: readonly CacheTags[]): Promise<string[]> {
  const keys: string[] = [];
  for (const tags of tagSets) if ((await cache.get(keyOf(tags))) !== null) keys.push(keyOf(tags));
  return keys;
}

function matches(tags: CacheTags, purge: CachePurge): boolean {
  return tags.organisation === purge.organisation && (purge.namespace === undefined || tags.namespace === purge.namespace) && (purge.configId === undefined || tags.configId === purge.configId);
}

describe('the purge as a change-feed record ID', () => {
  const purges = fc.record({ id: fc.uuid(), organisation: fc.string(), namespace: fc.option(fc.string(), { nil: undefined }), configId: fc.option(fc.string(), { nil: undefined }) }, { requiredKeys: ['id', 'organisation'] });
  test.prop([purges])('reads back as it was written', (purge) => {
    const expected: AnnouncedPurge = { id: purge.id, organisation: purge.organisation };
    if (purge.namespace !== undefined) expected.namespace = purge.namespace;
    if (purge.configId !== undefined) expected.configId = purge.configId;
    expect(decodePurge(encodePurge(purge))).toEqual(expected);
  });
  test.prop([fc.oneof(fc.string(), fc.json())])('reads any other text as no purge, never throwing', (text) => {
    const purge = decodePurge(text);
    if (purge !== null) expect(typeof purge.organisation).toBe('string');
  });
});

describe.each(BACKENDS)('cache purges across processes on %s', (backend) => {
  const org = randomUUID();
  const other = randomUUID();
  const tagSets: CacheTags[] = [
    { organisation: org, namespace: null, configId: null },
    { organisation: org, namespace: 'a', configId: null },
    { organisation: org, namespace: 'a', configId: 'c1' },
    { organisation: org, namespace: 'b', configId: 'c1' },
    { organisation: other, namespace: 'a', configId: 'c1' },
  ];

  it('purges in the answering process at once, and in the other at its next poll, the same scope only', async () => {
    const [a, b] = await twoProcesses(backend);
    await fill(a.cache, tagSets);
    await fill(b.cache, tagSets);
    expect(await a.purge({ organisation: org, namespace: 'a' })).toBe(2);
    const left = tagSets.filter((t) => !matches(t, { organisation: org, namespace: 'a' })).map(keyOf);
    expect(await held(a.cache, tagSets)).toEqual(left);
    expect(await held(b.cache, tagSets)).toEqual(tagSets.map(keyOf));
    await b.store.changes.refresh();
    expect(await held(b.cache, tagSets)).toEqual(left);
  });

  it('does not apply its own purge again when the feed brings it back: what was stored since stays', async () => {
    const [a] = await twoProcesses(backend);
    await fill(a.cache, tagSets);
    await a.purge({ organisation: org, configId: 'c1' });
    await fill(a.cache, tagSets);
    await a.store.changes.refresh();
    expect(await held(a.cache, tagSets)).toEqual(tagSets.map(keyOf));
  });

  it('empties the cache of a process that fell further behind than the change log keeps', async () => {
    const [a, b, location] = await twoProcesses(backend);
    await fill(b.cache, tagSets);
    await a.purge({ organisation: other });
    await a.purge({ organisation: other, namespace: 'x' });
    const raw = await openRawDatabase(location);
    try {
      // What pruning does to a reader that fell behind: its next revision is gone from the log.
      await raw.run("DELETE FROM store_changes WHERE kind = 'cache_purges' AND revision <= 1");
    } finally {
      await raw.close();
    }
    await b.store.changes.refresh();
    expect(b.cache.entries).toBe(0);
  });

  it('answers 503 store_unavailable, having purged its own entries, when the store does not take the purge', async () => {
    const cache = new MemoryResponseCache(1 << 20);
    const changes = { watch: async () => undefined } as unknown as GatewayStore['changes'];
    const log = { announce: () => Promise.reject(new StoreUnavailableError('connection refused')) };
    const purge = await purgeEveryProcess(cache, log, changes, silentLogger);
    await fill(cache, tagSets);
    const error = await purge({ organisation: org }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('store_unavailable');
    expect((error as GatewayError).message).toMatch(/Purged 4 .* other processes .* not told/);
    expect(await held(cache, tagSets)).toEqual([keyOf(tagSets[4]!)]);
  });

  const scopes = fc.record({ organisation: fc.constantFrom(org, other), namespace: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }), configId: fc.option(fc.constantFrom('c1'), { nil: undefined }) }, { requiredKeys: ['organisation'] });
  test.prop([fc.array(fc.tuple(fc.boolean(), scopes), { minLength: 1, maxLength: 5 })], { numRuns: 10 })(
    'after a poll, both processes hold exactly the entries no purge of either named',
    async (purges) => {
      const [a, b] = await twoProcesses(backend);
      await fill(a.cache, tagSets);
      await fill(b.cache, tagSets);
      for (const [byA, scope] of purges) await (byA ? a : b).purge(scope);
      await a.store.changes.refresh();
      await b.store.changes.refresh();
      const left = tagSets.filter((t) => !purges.some(([, scope]) => matches(t, scope))).map(keyOf);
      expect(await held(a.cache, tagSets)).toEqual(left);
      expect(await held(b.cache, tagSets)).toEqual(left);
    },
  );
});
