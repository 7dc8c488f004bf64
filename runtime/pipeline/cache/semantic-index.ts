// The semantic cache's vector index, in this process (ARCHITECTURE §6): one HNSW index (usearch,
// cosine) per key scope, so a match is only ever an answer to a request that differs in its text
// alone. Each vector points at the stored answer's key in the response cache; a match whose entry
// has expired there is a miss. Bounded by entries, each scope's own index counting as SCOPE_ENTRIES
// more: past the bound the oldest vectors go first (and a scope with none left, its index).
// The native indexes live on a thread of their own (semantic-index-worker.ts), so adding and
// searching never hold up the serving thread; this side keeps which id is which entry, its expiry
// and the eviction order, and a lookup is one message there and back.
// usearch is a native addon: loaded only when a semantic cache is configured (SemanticIndex.create),
// so a gateway without one (and the one-file build, which leaves it out) never needs it.
import { Worker } from 'node:worker_threads';
import { EMBEDDED_FILES, SEMANTIC_INDEX_WORKER } from '../../../compiler/config/embedded-files.ts';
import type { IndexMessage, IndexReply, IndexWorkerData } from './semantic-index-worker.ts';

/** How many nearest vectors a lookup reads, so expired ones near the top do not hide a live match. */
const CANDIDATES = 4;

/**
 * What each scope's index costs beyond its vectors, in entries of the bound: a usearch index holds
 * ~48 KB of its own, about what 16 vectors of 1,536 dimensions take in a shared one (measured: 54 KB
 * for a one-vector index, 3.7 KB a vector in a large one). Without it, a semantic route keyed by
 * per-user metadata made one index per user: 100,000 one-vector scopes, ~5.5 GB instead of the
 * ~0.4 GB the bound stands for. The first scope is not charged, so a small bound still keeps vectors.
 */
export const SCOPE_ENTRIES = 16;

export interface SemanticMatch {
  /** The response-cache key of the matched answer. */
  entryKey: string;
  /** Cosine similarity, 1 for the same direction. */
  similarity: number;
}

interface Vector {
  /** The index's name: scope and dimensions. */
  scope: string;
  entryKey: string;
  expiresAt: number;
}

/** A vector of an answer in the response cache: its key scope, the entry it points at, and until when that lives. */
export interface SemanticVector {
  scope: string;
  vector: Float32Array;
  entryKey: string;
  expiresAt: number;
}

type Found = Extract<IndexReply, { op: 'found' }>;

export class SemanticIndex {
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #worker: Worker;
  /** Index name (`scope:dimensions`) → its vectors by entry key: a key stored again replaces its vector. */
  readonly #scopes = new Map<string, Map<string, bigint>>();
  /** Every vector in insertion order (the eviction order). */
  readonly #vectors = new Map<bigint, Vector>();
  #nextId = 1n;
  /** Every id below it is gone: where eviction looks for the oldest. */
  #floor = 1n;
  #nextRequest = 0;
  readonly #waiting = new Map<number, (reply: Found | null) => void>();
  #stopped = false;
  /** How long the index thread searched for the last lookup (µs), the messages excluded: for the benchmark. */
  lastSearchMicros = 0;

  /**
   * Starts the index thread, which loads the native library; fails with a clear message when it is
   * not installed. `onStopped`: told once if the thread dies (not when closed); every lookup is a
   * miss from then on. `thread`: the thread's code (tests give one that dies).
   */
  static async create(maxEntries: number, now: () => number = Date.now, onStopped: (reason: string) => void = () => {}, thread: URL = workerUrl()): Promise<SemanticIndex> {
    const worker = new Worker(thread, {
      workerData: { resolveFrom: import.meta.url } satisfies IndexWorkerData,
      // The vectors are native memory; the thread's own heap holds only messages.
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 },
    });
    worker.unref();
    const first = await new Promise<IndexReply>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    }).catch((error: Error): IndexReply => ({ op: 'failed', message: error.message }));
    if (first.op !== 'ready') {
      await worker.terminate();
      const reason = first.op === 'failed' ? first.message : `unexpected ${first.op}`;
      throw new Error(`the semantic cache needs the native package usearch, which could not be loaded (${reason}); install it beside the gateway, or unset GATEWAY_SEMANTIC_CACHE_EMBEDDINGS`);
    }
    return new SemanticIndex(worker, maxEntries, now, onStopped);
  }

  private constructor(worker: Worker, maxEntries: number, now: () => number, onStopped: (reason: string) => void) {
    this.#worker = worker;
    this.#maxEntries = maxEntries;
    this.#now = now;
    worker.on('message', (reply: IndexReply) => {
      if (reply.op !== 'found' && reply.op !== 'settled') return;
      const resolve = this.#waiting.get(reply.id);
      this.#waiting.delete(reply.id);
      resolve?.(reply.op === 'found' ? reply : null);
    });
    // A thread that died (it should not) makes every lookup a miss from then on, never an error.
    worker.on('error', (error) => this.#died(error.message, onStopped));
    worker.on('exit', (code) => this.#died(`it exited with code ${code}`, onStopped));
  }

  get size(): number {
    return this.#vectors.size;
  }

  add(scope: string, vector: Float32Array, entryKey: string, expiresAt: number): void {
    this.#addAll([{ scope, vector, entryKey, expiresAt }], false);
  }

  /**
   * Adds several vectors (what other processes stored, from the feed): the index thread adds them a
   * slice at a time on every core, and each is findable once its slice is in.
   */
  addMany(entries: readonly SemanticVector[]): void {
    this.#addAll(entries, true);
  }

  #addAll(entries: readonly SemanticVector[], bulk: boolean): void {
    if (this.#stopped) return;
    const now = this.#now();
    const byName = new Map<string, Array<{ id: bigint; vector: Float32Array }>>();
    for (const { scope, vector, entryKey, expiresAt } of entries) {
      if (vector.length === 0 || expiresAt <= now) continue;
      // A different embedding model (other dimensions) gets its own index.
      const name = `${scope}:${vector.length}`;
      const previous = this.#scopes.get(name)?.get(entryKey);
      if (previous !== undefined) this.#remove(previous);
      let byEntry = this.#scopes.get(name);
      if (byEntry === undefined) this.#scopes.set(name, (byEntry = new Map()));
      const id = this.#nextId++;
      byEntry.set(entryKey, id);
      this.#vectors.set(id, { scope: name, entryKey, expiresAt });
      let batch = byName.get(name);
      if (batch === undefined) byName.set(name, (batch = []));
      batch.push({ id, vector });
    }
    for (const [name, batch] of byName) {
      const dimensions = batch[0].vector.length;
      const vectors = new Float32Array(batch.length * dimensions);
      batch.forEach(({ vector }, i) => vectors.set(vector, i * dimensions));
      const ids = BigUint64Array.from(batch, ({ id }) => id);
      this.#post({ op: 'add', name, ids, vectors, bulk }, [vectors.buffer]);
    }
    // Ids grow with insertion, so the oldest live one is at or past the floor: each id is passed
    // once (iterating the Map from its start walked the holes its deletions leave: ~90 µs an add
    // at 100,000 entries).
    while (this.#vectors.size + Math.max(0, this.#scopes.size - 1) * SCOPE_ENTRIES > this.#maxEntries) {
      this.#remove(this.#floor);
      this.#floor++;
    }
  }

  /** The nearest live vector of the scope, or null when the scope has none. */
  async nearest(scope: string, vector: Float32Array): Promise<SemanticMatch | null> {
    const name = `${scope}:${vector.length}`;
    const byEntry = this.#scopes.get(name);
    if (byEntry === undefined || byEntry.size === 0 || this.#stopped) return null;
    const found = await this.#ask<Found>((id) => ({ op: 'search', id, name, vector, count: CANDIDATES }));
    if (found === null) return null;
    this.lastSearchMicros = found.searchMicros;
    const now = this.#now();
    for (let i = 0; i < found.keys.length; i++) {
      const id = found.keys[i];
      const entry = this.#vectors.get(id);
      if (entry === undefined) continue;
      if (entry.expiresAt <= now) {
        this.#remove(id);
        continue;
      }
      return { entryKey: entry.entryKey, similarity: 1 - found.distances[i] };
    }
    return null;
  }

  /** Resolves once the index thread has added every vector given so far (bulk slices included). */
  async settled(): Promise<void> {
    if (!this.#stopped) await this.#ask((id) => ({ op: 'settled', id }));
  }

  /** Stops the index thread; lookups are misses from then on. */
  async close(): Promise<void> {
    this.#stop();
    await this.#worker.terminate();
  }

  /** Forgets the vector of an entry the response cache no longer has. */
  forget(scope: string, entryKey: string, dimensions: number): void {
    const id = this.#scopes.get(`${scope}:${dimensions}`)?.get(entryKey);
    if (id !== undefined) this.#remove(id);
  }

  #remove(id: bigint): void {
    const entry = this.#vectors.get(id);
    if (entry === undefined) return;
    this.#vectors.delete(id);
    const byEntry = this.#scopes.get(entry.scope)!;
    byEntry.delete(entry.entryKey);
    if (byEntry.size === 0) this.#scopes.delete(entry.scope);
    this.#post({ op: 'remove', name: entry.scope, ids: BigUint64Array.of(id) });
  }

  #post(message: IndexMessage, transfer: ArrayBuffer[] = []): void {
    if (!this.#stopped) this.#worker.postMessage(message, transfer);
  }

  #ask<T extends IndexReply>(message: (id: number) => IndexMessage): Promise<T | null> {
    const id = this.#nextRequest++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve as (reply: Found | null) => void);
      this.#worker.postMessage(message(id));
    });
  }

  #died(reason: string, onStopped: (reason: string) => void): void {
    if (this.#stopped) return;
    this.#stop();
    onStopped(reason);
  }

  #stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const resolve of this.#waiting.values()) resolve(null);
    this.#waiting.clear();
  }
}

/** The bundled thread's code in a one-file build (`gateway build` embeds it); the source file otherwise. */
function workerUrl(): URL {
  const bundled = EMBEDDED_FILES?.[SEMANTIC_INDEX_WORKER];
  return bundled === undefined ? new URL('./semantic-index-worker.ts', import.meta.url) : new URL(`data:text/javascript,${encodeURIComponent(bundled)}`);
}
