// The semantic cache's vector index, in this process (ARCHITECTURE §6): one HNSW index (usearch,
// cosine) per key scope, so a match is only ever an answer to a request that differs in its text
// alone. Each vector points at the stored answer's key in the response cache; a match whose entry
// has expired there is a miss. Bounded by entries: past the bound the oldest vectors go first.
// usearch is a native addon: loaded only when a semantic cache is configured (SemanticIndex.create),
// so a gateway without one (and the one-file build, which leaves it out) never needs it.
import type Usearch from 'usearch';

type UsearchModule = typeof Usearch;

/** How many nearest vectors a lookup reads, so expired ones near the top do not hide a live match. */
const CANDIDATES = 4;

export interface SemanticMatch {
  /** The response-cache key of the matched answer. */
  entryKey: string;
  /** Cosine similarity, 1 for the same direction. */
  similarity: number;
}

interface Vector {
  scope: string;
  entryKey: string;
  expiresAt: number;
}

interface Scope {
  index: InstanceType<UsearchModule['Index']>;
  /** Vectors of this scope by entry key: a key stored again replaces its vector. */
  byEntry: Map<string, bigint>;
}

export class SemanticIndex {
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #scopes = new Map<string, Scope>();
  /** Every vector in insertion order (the eviction order). */
  readonly #vectors = new Map<bigint, Vector>();
  #nextId = 1n;

  readonly #usearch: UsearchModule;

  /** Loads the native index library, then builds the index; fails with a clear message when it is not installed. */
  static async create(maxEntries: number, now: () => number = Date.now): Promise<SemanticIndex> {
    let usearch: UsearchModule;
    try {
      usearch = (await import('usearch')).default;
    } catch (error) {
      throw new Error(`the semantic cache needs the native package usearch, which could not be loaded (${(error as Error).message}); install it beside the gateway, or unset GATEWAY_SEMANTIC_CACHE_EMBEDDINGS`);
    }
    return new SemanticIndex(usearch, maxEntries, now);
  }

  private constructor(usearch: UsearchModule, maxEntries: number, now: () => number) {
    this.#usearch = usearch;
    this.#maxEntries = maxEntries;
    this.#now = now;
  }

  get size(): number {
    return this.#vectors.size;
  }

  add(scope: string, vector: Float32Array, entryKey: string, expiresAt: number): void {
    this.addMany([{ scope, vector, entryKey, expiresAt }]);
  }

  /**
   * Adds several vectors, those of one scope in one call to the index (which then builds on all
   * cores): how a process loads what other processes stored when it starts.
   */
  addMany(entries: ReadonlyArray<{ scope: string; vector: Float32Array; entryKey: string; expiresAt: number }>): void {
    const now = this.#now();
    const byScope = new Map<string, Array<{ id: bigint; vector: Float32Array }>>();
    for (const { scope, vector, entryKey, expiresAt } of entries) {
      if (vector.length === 0 || expiresAt <= now) continue;
      // A different embedding model (other dimensions) gets its own index.
      const name = `${scope}:${vector.length}`;
      const previous = this.#scopes.get(name)?.byEntry.get(entryKey);
      if (previous !== undefined) this.#remove(previous);
      // After the removal, which drops a scope left empty.
      const held = this.#scope(name, vector.length);
      const id = this.#nextId++;
      held.byEntry.set(entryKey, id);
      this.#vectors.set(id, { scope: name, entryKey, expiresAt });
      let batch = byScope.get(name);
      if (batch === undefined) byScope.set(name, (batch = []));
      batch.push({ id, vector });
    }
    for (const [name, batch] of byScope) {
      const index = this.#scope(name, batch[0].vector.length).index;
      if (batch.length === 1) index.add(batch[0].id, batch[0].vector);
      else {
        const dimensions = batch[0].vector.length;
        const matrix = new Float32Array(batch.length * dimensions);
        batch.forEach(({ vector }, i) => matrix.set(vector, i * dimensions));
        index.add(BigUint64Array.from(batch, ({ id }) => id), matrix, 0);
      }
    }
    for (const [oldest] of this.#vectors) {
      if (this.#vectors.size <= this.#maxEntries) break;
      this.#remove(oldest);
    }
  }

  #scope(name: string, dimensions: number): Scope {
    let held = this.#scopes.get(name);
    if (held === undefined) {
      // Half-precision: twice the speed of f32 (docs/decisions.md) with similarities within ~1e-3.
      const { Index, MetricKind, ScalarKind } = this.#usearch;
      held = { index: new Index({ dimensions, metric: MetricKind.Cos, quantization: ScalarKind.F16, connectivity: 16, expansion_add: 64, expansion_search: 32, multi: false }), byEntry: new Map() };
      this.#scopes.set(name, held);
    }
    return held;
  }

  /** The nearest live vector of the scope, or null when the scope has none. */
  nearest(scope: string, vector: Float32Array): SemanticMatch | null {
    const held = this.#scopes.get(`${scope}:${vector.length}`);
    if (held === undefined || held.byEntry.size === 0) return null;
    // One thread: a single query is faster alone than handed to a pool.
    const found = held.index.search(vector, Math.min(CANDIDATES, held.byEntry.size), 1);
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

  /** Forgets the vector of an entry the response cache no longer has. */
  forget(scope: string, entryKey: string, dimensions: number): void {
    const id = this.#scopes.get(`${scope}:${dimensions}`)?.byEntry.get(entryKey);
    if (id !== undefined) this.#remove(id);
  }

  #remove(id: bigint): void {
    const entry = this.#vectors.get(id);
    if (entry === undefined) return;
    this.#vectors.delete(id);
    const held = this.#scopes.get(entry.scope)!;
    held.index.remove(id);
    held.byEntry.delete(entry.entryKey);
    if (held.byEntry.size === 0) this.#scopes.delete(entry.scope);
  }
}
