// The semantic index: the nearest live vector of a scope, against a brute-force cosine search; scopes
// and dimensions kept apart; expired and evicted vectors never match; a re-stored entry replaces its
// vector; bulk loading finds the same as adding one by one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { SCOPE_ENTRIES, SemanticIndex } from '../../runtime/pipeline/cache/semantic-index.ts';
import { watchEventLoop } from '../support/event-loop-watch.ts';
import { until } from '../jobs/harness.ts';

const FAR = 4_000_000_000_000;

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

const vector = (dimensions: number) => fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: dimensions, maxLength: dimensions })
  .filter((v) => v.some((x) => Math.abs(x) > 0.01))
  .map((v) => Float32Array.from(v));

describe('semantic index', () => {
  // One index thread for the property's runs, each in a scope of its own.
  let shared: SemanticIndex;
  let run = 0;
  beforeAll(async () => {
    shared = await SemanticIndex.create(100_000);
  });
  afterAll(() => shared?.close());

  test.prop([fc.array(vector(8), { minLength: 1, maxLength: 30 }), vector(8), fc.boolean()], { numRuns: 60 })('finds the most similar vector of the scope, as a brute-force search does', async (stored, query, bulk) => {
    const scope = `s${run++}`;
    const entries = stored.map((v, i) => ({ scope, vector: v, entryKey: `k${i}`, expiresAt: FAR }));
    if (bulk) {
      shared.addMany(entries);
      // Bulk vectors (the feed's) are added in slices on the index thread: findable once settled.
      await shared.settled();
    } else for (const e of entries) shared.add(e.scope, e.vector, e.entryKey, e.expiresAt);
    const best = Math.max(...stored.map((v) => cosine(v, query)));
    const found = (await shared.nearest(scope, query))!;
    expect(found).not.toBeNull();
    // Vectors are held in half precision: similarities agree to about 1e-3.
    expect(found.similarity).toBeCloseTo(best, 2);
    expect(cosine(stored[Number(found.entryKey.slice(1))], query)).toBeCloseTo(best, 2);
  });

  it('keeps scopes and dimensions apart', async () => {
    const index = await SemanticIndex.create(10);
    index.add('a', Float32Array.from([1, 0, 0]), 'a1', FAR);
    expect((await index.nearest('b', Float32Array.from([1, 0, 0])))).toBeNull();
    expect((await index.nearest('a', Float32Array.from([1, 0, 0, 0])))).toBeNull();
    expect((await index.nearest('a', Float32Array.from([1, 0, 0])))).toEqual({ entryKey: 'a1', similarity: expect.closeTo(1, 5) });
    // The search's own time on the index thread, for the benchmark.
    expect(index.lastSearchMicros).toBeGreaterThan(0);
  });

  it('never matches an expired vector, and forgets it', async () => {
    let now = 1000;
    const index = await SemanticIndex.create(10, () => now);
    index.add('s', Float32Array.from([1, 0]), 'old', 2000);
    index.add('s', Float32Array.from([0.6, 0.8]), 'live', 9000);
    now = 2500;
    expect((await index.nearest('s', Float32Array.from([1, 0])))!.entryKey).toBe('live');
    expect(index.size).toBe(1);
  });

  it('counts each further scope\'s own index against the bound, so one vector per scope cannot grow it', async () => {
    const index = await SemanticIndex.create(1 + 2 * (SCOPE_ENTRIES + 1));
    for (const scope of ['s1', 's2', 's3', 's4', 's5']) index.add(scope, Float32Array.from([1, 0]), `${scope}-entry`, FAR);
    // Three scopes of one vector each fit (3 vectors and 2 × SCOPE_ENTRIES); the oldest two went.
    expect(index.size).toBe(3);
    expect(await index.nearest('s1', Float32Array.from([1, 0]))).toBeNull();
    expect(await index.nearest('s2', Float32Array.from([1, 0]))).toBeNull();
    expect((await index.nearest('s5', Float32Array.from([1, 0])))!.entryKey).toBe('s5-entry');
    // One scope holds as many vectors as the bound.
    for (let i = 0; i < 40; i++) index.add('s5', Float32Array.from([1, i]), `many-${i}`, FAR);
    expect(index.size).toBe(1 + 2 * (SCOPE_ENTRIES + 1));
    expect(await index.nearest('s3', Float32Array.from([1, 0]))).toBeNull();
  });

  it('replaces the vector of an entry stored again, and evicts the oldest past its bound', async () => {
    const index = await SemanticIndex.create(2);
    index.add('s', Float32Array.from([1, 0]), 'x', FAR);
    index.add('s', Float32Array.from([0, 1]), 'x', FAR);
    expect(index.size).toBe(1);
    expect((await index.nearest('s', Float32Array.from([1, 0.01])))!.similarity).toBeLessThan(0.1);
    index.add('s', Float32Array.from([1, 1]), 'y', FAR);
    index.add('s', Float32Array.from([-1, 0]), 'z', FAR);
    expect(index.size).toBe(2);
    expect((await index.nearest('s', Float32Array.from([0, 1])))!.entryKey).toBe('y');
    index.forget('s', 'y', 2);
    expect((await index.nearest('s', Float32Array.from([0, 1])))!.entryKey).toBe('z');
  });

  it('adds a feed backlog on its own thread: the serving thread keeps running, and every vector is found once settled', { timeout: 60_000 }, async () => {
    const index = await SemanticIndex.create(10_000);
    try {
      const dimensions = 1536;
      // Uniform pseudo-random vectors (xorshift): no structure for the index to take shortcuts on.
      let state = 12345;
      const next = () => {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        return (state >>> 0) / 4_294_967_296 - 0.5;
      };
      const entries = Array.from({ length: 3000 }, (_, i) => ({ scope: 'feed', vector: Float32Array.from({ length: dimensions }, next), entryKey: `f${i}`, expiresAt: FAR }));
      // On the serving thread this backlog was one native call of ~0.6 s or more, every request waiting.
      const watch = watchEventLoop();
      const started = performance.now();
      index.addMany(entries);
      const handedOver = performance.now() - started;
      // A lookup meanwhile answers (with what is in so far) instead of waiting for the whole backlog.
      await index.nearest('feed', entries[0].vector);
      await index.settled();
      const longest = watch.stop();
      expect(handedOver).toBeLessThan(100);
      expect(longest).toBeLessThan(250);
      for (const k of [0, 1499, 2999]) expect((await index.nearest('feed', entries[k].vector))!.entryKey).toBe(`f${k}`);
      expect(index.size).toBe(3000);
    } finally {
      await index.close();
    }
  });

  it('tells once when its thread dies, and answers every lookup as a miss from then on', async () => {
    // A thread that says it is ready and dies at its first message.
    const dying = new URL(`data:text/javascript,${encodeURIComponent("import { parentPort } from 'node:worker_threads'; parentPort.postMessage({ op: 'ready' }); parentPort.on('message', () => process.exit(3));")}`);
    const stopped: string[] = [];
    const index = await SemanticIndex.create(100, Date.now, (reason) => void stopped.push(reason), dying);
    try {
      index.add('s', Float32Array.from([1, 0]), 'k', FAR);
      await until(async () => stopped, (reasons) => reasons.length > 0, 5000);
      expect(stopped).toEqual(['it exited with code 3']);
      expect(await index.nearest('s', Float32Array.from([1, 0]))).toBeNull();
    } finally {
      await index.close();
    }
    expect(stopped).toHaveLength(1);
  });

  it('answers every lookup as a miss once closed, never an error', async () => {
    const index = await SemanticIndex.create(10);
    index.add('s', Float32Array.from([1, 0]), 'x', FAR);
    await index.close();
    expect(await index.nearest('s', Float32Array.from([1, 0]))).toBeNull();
  });
});
