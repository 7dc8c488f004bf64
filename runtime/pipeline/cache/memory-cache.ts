// The response cache in this process's memory: bounded by bytes (GATEWAY_CACHE_MAX_BYTES), least
// recently used entries evicted first, expired entries dropped when met. A Map keeps insertion
// order, so a hit re-inserts its entry and the first key is always the least recently used.
import { answerBytes, type CachedAnswer } from './cached-answer.ts';
import type { CachePurge, CacheTags, ResponseCache } from './response-cache.ts';

interface Entry {
  answer: CachedAnswer;
  expiresAt: number;
  bytes: number;
  tags: CacheTags;
}

export class MemoryResponseCache implements ResponseCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxBytes: number;
  readonly #now: () => number;
  #bytes = 0;

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
    this.#entries.delete(key);
    if (entry.expiresAt <= this.#now()) {
      this.#bytes -= entry.bytes;
      return Promise.resolve(null);
    }
    // Back to the end: the most recently used.
    this.#entries.set(key, entry);
    return Promise.resolve(entry.answer);
  }

  set(key: string, answer: CachedAnswer, ttlMs: number, tags: CacheTags): Promise<void> {
    this.#remove(key);
    const bytes = answerBytes(answer);
    // An answer larger than the whole cache would only evict everything and then itself.
    if (bytes > this.#maxBytes || ttlMs <= 0) return Promise.resolve();
    this.#entries.set(key, { answer, expiresAt: this.#now() + ttlMs, bytes, tags });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
    return Promise.resolve();
  }

  purge(filter: CachePurge): Promise<number> {
    let purged = 0;
    const now = this.#now();
    for (const [key, entry] of this.#entries) {
      const tags = entry.tags;
      if (tags.organisation !== filter.organisation) continue;
      if (filter.namespace !== undefined && tags.namespace !== filter.namespace) continue;
      if (filter.configId !== undefined && tags.configId !== filter.configId) continue;
      this.#remove(key);
      if (entry.expiresAt > now) purged++;
    }
    return Promise.resolve(purged);
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}
