// The semantic cache's HNSW indexes (usearch), on a thread of their own: adding a vector of 1,536
// dimensions takes 1–2 ms of CPU and a lookup at 100,000 entries ~0.3 ms, and a process that starts
// beside others loads up to the index bound from the Redis feed. On the serving thread each of those
// held every request (a 500-vector batch of the feed ~0.4 s). Here they hold nothing but this thread.
// The serving thread keeps the bookkeeping (which id is which entry, expiry, eviction;
// semantic-index.ts) and sends only ids and vectors.
//
// Order: single adds and removes are applied as they arrive, and a lookup answers with every one
// that arrived before it. Bulk adds (what other processes stored) go in slices with this thread's
// event loop let in between, so lookups and the serving thread's own adds are not queued behind a
// whole feed backlog; such a vector becomes findable a moment after it arrived.
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type Usearch from 'usearch';

type UsearchModule = typeof Usearch;
type Index = InstanceType<UsearchModule['Index']>;

export type IndexMessage =
  | { op: 'add'; name: string; ids: BigUint64Array; vectors: Float32Array; bulk: boolean }
  | { op: 'remove'; name: string; ids: BigUint64Array }
  | { op: 'search'; id: number; name: string; vector: Float32Array; count: number }
  | { op: 'settled'; id: number };

export type IndexReply =
  | { op: 'ready' }
  | { op: 'failed'; message: string }
  | { op: 'found'; id: number; keys: BigUint64Array; distances: Float32Array; searchMicros: number }
  | { op: 'settled'; id: number };

export interface IndexWorkerData {
  /** The module the native package is resolved from (the gateway's own, so a one-file build finds it beside itself). */
  resolveFrom: string;
}

/** Vectors per call of a bulk add: ~30–60 ms at 1,536 dimensions. */
const BULK_SLICE = 32;
/** Threads of a bulk add: every core but one, which the serving thread keeps (a backlog is background work). */
const BULK_THREADS = Math.max(1, availableParallelism() - 1);

interface BulkSlice {
  name: string;
  dimensions: number;
  ids: BigUint64Array;
  vectors: Float32Array;
}

const port = parentPort!;
let usearch: UsearchModule;
try {
  const loaded = createRequire((workerData as IndexWorkerData).resolveFrom)('usearch') as UsearchModule & { default?: UsearchModule };
  usearch = loaded.default ?? loaded;
} catch (error) {
  // Its first line: require() appends the stack of modules that asked.
  port.postMessage({ op: 'failed', message: (error as Error).message.split('\n')[0] } satisfies IndexReply);
  process.exit(0);
}

const indexes = new Map<string, Index>();
const bulk: BulkSlice[] = [];
/** Bulk rows per index name still queued: an index is dropped once empty and none is queued for it. */
const queuedFor = new Map<string, number>();
/** Ids removed before their bulk row was added: skipped when it comes. */
const cancelled = new Set<bigint>();
const settledWaiters: number[] = [];
let draining = false;

port.on('message', (message: IndexMessage) => {
  switch (message.op) {
    case 'add': {
      const dimensions = message.vectors.length / message.ids.length;
      if (!message.bulk) {
        add(message.name, dimensions, message.ids, message.vectors, 1);
        return;
      }
      for (let start = 0; start < message.ids.length; start += BULK_SLICE) {
        const end = Math.min(message.ids.length, start + BULK_SLICE);
        bulk.push({ name: message.name, dimensions, ids: message.ids.subarray(start, end), vectors: message.vectors.subarray(start * dimensions, end * dimensions) });
        queuedFor.set(message.name, (queuedFor.get(message.name) ?? 0) + (end - start));
      }
      drainSoon();
      return;
    }
    case 'remove': {
      const index = indexes.get(message.name);
      for (const id of message.ids) {
        const removed = index === undefined ? 0 : (index.remove(id) as number);
        if (removed === 0 && queuedFor.has(message.name)) cancelled.add(id);
      }
      dropIfEmpty(message.name);
      return;
    }
    case 'search': {
      const index = indexes.get(message.name);
      const size = index === undefined ? 0 : index.size();
      if (index === undefined || size === 0) {
        port.postMessage({ op: 'found', id: message.id, keys: new BigUint64Array(0), distances: new Float32Array(0), searchMicros: 0 } satisfies IndexReply);
        return;
      }
      // One thread: a single query is faster alone than handed to a pool.
      const started = performance.now();
      const found = index.search(message.vector, Math.min(message.count, size), 1);
      // The search alone, so a benchmark can tell it from the message there and back.
      const searchMicros = (performance.now() - started) * 1000;
      port.postMessage({ op: 'found', id: message.id, keys: found.keys, distances: found.distances, searchMicros } satisfies IndexReply);
      return;
    }
    case 'settled':
      if (bulk.length === 0) port.postMessage({ op: 'settled', id: message.id } satisfies IndexReply);
      else settledWaiters.push(message.id);
      return;
  }
});

port.postMessage({ op: 'ready' } satisfies IndexReply);

/** `threads`: for a bulk slice (a single vector is added on this thread). */
function add(name: string, dimensions: number, ids: BigUint64Array, vectors: Float32Array, threads: number): void {
  let index = indexes.get(name);
  if (index === undefined) {
    // Half-precision: twice the speed of f32 (docs/decisions.md) with similarities within ~1e-3.
    const { Index, MetricKind, ScalarKind } = usearch;
    index = new Index({ dimensions, metric: MetricKind.Cos, quantization: ScalarKind.F16, connectivity: 16, expansion_add: 64, expansion_search: 32, multi: false });
    indexes.set(name, index);
  }
  if (ids.length === 1) index.add(ids[0], vectors);
  else index.add(ids, vectors, threads);
}

function drainSoon(): void {
  if (draining) return;
  draining = true;
  setImmediate(drainOne);
}

/** One bulk slice, then a turn of the event loop (messages that arrived meanwhile go first). */
function drainOne(): void {
  const slice = bulk.shift();
  if (slice !== undefined) {
    const left = (queuedFor.get(slice.name) ?? 0) - slice.ids.length;
    if (left > 0) queuedFor.set(slice.name, left);
    else queuedFor.delete(slice.name);
    let { ids, vectors } = slice;
    if (cancelled.size > 0 && ids.some((id) => cancelled.has(id))) {
      const keep = [...ids.keys()].filter((i) => !cancelled.delete(ids[i]));
      const rows = slice.vectors;
      const dimensions = slice.dimensions;
      vectors = new Float32Array(keep.length * dimensions);
      keep.forEach((row, k) => vectors.set(rows.subarray(row * dimensions, (row + 1) * dimensions), k * dimensions));
      ids = BigUint64Array.from(keep, (row) => slice.ids[row]);
    }
    if (ids.length > 0) add(slice.name, slice.dimensions, ids, vectors, BULK_THREADS);
    dropIfEmpty(slice.name);
  }
  if (bulk.length > 0) {
    setImmediate(drainOne);
    return;
  }
  draining = false;
  if (queuedFor.size === 0) cancelled.clear();
  for (const id of settledWaiters.splice(0)) port.postMessage({ op: 'settled', id } satisfies IndexReply);
}

function dropIfEmpty(name: string): void {
  const index = indexes.get(name);
  if (index !== undefined && index.size() === 0 && !queuedFor.has(name)) indexes.delete(name);
}
