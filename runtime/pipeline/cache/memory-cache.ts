// The response cache in this process's memory: bounded by bytes (GATEWAY_CACHE_MAX_BYTES), least
// recently used entries evicted first, expired entries dropped when met. Recency is a doubly linked
// list through the entries (oldest at the head): a hit moves its entry to the tail and a store evicts
// from the head, each in constant time. A Map's insertion order did the same until the cache was
// full: deleting and re-inserting leaves holes that iterating from its start walks, and every store
// of a full cache cost 30–115 µs instead of ~2.
import { answerBytes, type CachedAnswer } from './cached-answer.ts';
import type { CachePurge, CacheTags, ResponseCache } from './response-cache.ts';

interface Entry {
  key: string;
  answer: CachedAnswer;
  expiresAt: number;
  bytes: number;
  tags: CacheTags;
  /** Towards the least recently used. */
  older: Entry | null;
  /** Towards the most recently used. */
  newer: Entry | null;
}

export class MemoryResponseCache implements ResponseCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxBytes: number;
  readonly #now: () => number;
  #bytes = 0;
  /** The least recently used entry. */
  #oldest: Entry | null = null;
  /** The most recently used entry. */
  #newest: Entry | null = null;

  constructor(maxBytes: number, now: () => number = Date.now) {
    this.#maxBytes = maxBytes;
    this.#now = now;
  }

  /** Bytes held now (a /metrics gauge). */
  get bytes(): number {
    return this.#bytes;
  }

  get entries(): number {
    return this.#entries.size;
  }

  get(key: string): Promise<CachedAnswer | null> {
    const entry = this.#entries.get(key);
    if (entry === undefined) return Promise.resolve(null);
    if (entry.expiresAt <= this.#now()) {
      this.#remove(entry);
      return Promise.resolve(null);
    }
    this.#unlink(entry);
    this.#append(entry);
    return Promise.resolve(entry.answer);
  }

  set(key: string, answer: CachedAnswer, ttlMs: number, tags: CacheTags): Promise<void> {
    const previous = this.#entries.get(key);
    if (previous !== undefined) this.#remove(previous);
    // The key and the tags are kept with it: a client's x-gateway-cache-namespace may be long.
    const bytes = answerBytes(answer) + key.length + tags.organisation.length + (tags.namespace?.length ?? 0) + (tags.configId?.length ?? 0);
    // An answer larger than the whole cache would only evict everything and then itself.
    if (bytes > this.#maxBytes || ttlMs <= 0) return Promise.resolve();
    const entry: Entry = { key, answer, expiresAt: this.#now() + ttlMs, bytes, tags, older: null, newer: null };
    this.#entries.set(key, entry);
    this.#append(entry);
    this.#bytes += bytes;
    while (this.#bytes > this.#maxBytes && this.#oldest !== null) this.#remove(this.#oldest);
    return Promise.resolve();
  }

  purge(filter: CachePurge): Promise<number> {
    let purged = 0;
    const now = this.#now();
    for (const entry of this.#entries.values()) {
      const tags = entry.tags;
      if (tags.organisation !== filter.organisation) continue;
      if (filter.namespace !== undefined && tags.namespace !== filter.namespace) continue;
      if (filter.configId !== undefined && tags.configId !== filter.configId) continue;
      this.#remove(entry);
      if (entry.expiresAt > now) purged++;
    }
    return Promise.resolve(purged);
  }

  /** Drops every entry: for a process that lost track of the purges other processes told it of. */
  clear(): void {
    this.#entries.clear();
    this.#oldest = this.#newest = null;
    this.#bytes = 0;
  }

  #remove(entry: Entry): void {
    this.#entries.delete(entry.key);
    this.#unlink(entry);
    this.#bytes -= entry.bytes;
  }

  #append(entry: Entry): void {
    entry.older = this.#newest;
    entry.newer = null;
    if (this.#newest === null) this.#oldest = entry;
    else this.#newest.newer = entry;
    this.#newest = entry;
  }

  #unlink(entry: Entry): void {
    if (entry.older === null) this.#oldest = entry.newer;
    else entry.older.newer = entry.newer;
    if (entry.newer === null) this.#newest = entry.older;
    else entry.newer.older = entry.older;
    entry.older = null;
    entry.newer = null;
  }
}
