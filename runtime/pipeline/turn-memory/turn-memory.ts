// What the gateway keeps between a conversation's turns, for the provider's sake: small values a
// later request of the same organisation looks up by a key its body holds (the originals of signed
// reasoning an output check rewrote, by signature: guardrails/reasoning/; the signed thinking a
// translated chat answer had no place for, by the tool calls it led to:
// providers/anthropic/kept-thinking.ts). In this process's memory (default) or in Redis (REDIS_URL:
// every process finds what any other kept); one conformance suite runs against both
// (test/pipeline/turn-memory.conformance.test.ts).
import { createHash } from 'node:crypto';
import type { Exchange } from '../exchange.ts';

export interface TurnEntry {
  key: string;
  value: string;
}

/**
 * `scope` is the organisation of the key that was answered: a value is found only by a request of
 * the same organisation (another tenant that came by the key finds nothing).
 */
export interface TurnMemory {
  /** Keeps each value under its scope and key, for `TURN_MEMORY_TTL_MS` from its last use. */
  keep(scope: string, entries: readonly TurnEntry[]): Promise<void>;
  /** The values kept in `scope` under `keys` (a use: each is kept a day longer); absent for keys with none, or when the backend did not answer. */
  find(scope: string, keys: readonly string[]): Promise<Map<string, string>>;
}

/** The scope a request's values are kept and found in: the organisation of its key ('' for a request without a stored key). */
export function turnScope(x: Exchange): string {
  return x.caller?.organisationId ?? '';
}

/** How long a value is kept after it was last kept or found: a day, the length of a working session's conversation. */
export const TURN_MEMORY_TTL_MS = 24 * 3_600_000;

/** The most this process's memory keeps (without REDIS_URL): the least recently used go past it. */
export const TURN_MEMORY_MAX_BYTES = 32 * 1024 * 1024;

/** What a value is kept under: a digest of its scope and key (keys such as signatures run to kilobytes). */
export function turnKey(scope: string, key: string): string {
  return createHash('sha256').update(scope).update('\0').update(key).digest('base64url');
}

interface Kept {
  value: string;
  expiresAt: number;
  bytes: number;
}

/**
 * This process's memory, bounded by bytes: the least recently used values go first (a Map in
 * recency order, an entry inserted again when used). Values are kept rarely (a rewritten thought, a
 * tool call after thinking), so the Map stays small and evicting walks few holes.
 */
export class MemoryTurnMemory implements TurnMemory {
  readonly #kept = new Map<string, Kept>();
  readonly #maxBytes: number;
  readonly #now: () => number;
  #bytes = 0;

  constructor(maxBytes: number = TURN_MEMORY_MAX_BYTES, now: () => number = Date.now) {
    this.#maxBytes = maxBytes;
    this.#now = now;
  }

  get bytes(): number {
    return this.#bytes;
  }

  keep(scope: string, entries: readonly TurnEntry[]): Promise<void> {
    const expiresAt = this.#now() + TURN_MEMORY_TTL_MS;
    for (const { key, value } of entries) {
      const id = turnKey(scope, key);
      this.#drop(id);
      // UTF-16 code units, two bytes each, and the digest.
      const bytes = 2 * (value.length + id.length);
      if (bytes > this.#maxBytes) continue;
      this.#kept.set(id, { value, expiresAt, bytes });
      this.#bytes += bytes;
    }
    for (const id of this.#kept.keys()) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#drop(id);
    }
    return Promise.resolve();
  }

  find(scope: string, keys: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const now = this.#now();
    for (const key of keys) {
      const id = turnKey(scope, key);
      const kept = this.#kept.get(id);
      if (kept === undefined) continue;
      if (kept.expiresAt <= now) {
        this.#drop(id);
        continue;
      }
      found.set(key, kept.value);
      // Used: the most recent now, and kept a day from now.
      this.#kept.delete(id);
      kept.expiresAt = now + TURN_MEMORY_TTL_MS;
      this.#kept.set(id, kept);
    }
    return Promise.resolve(found);
  }

  #drop(id: string): void {
    const kept = this.#kept.get(id);
    if (kept === undefined) return;
    this.#kept.delete(id);
    this.#bytes -= kept.bytes;
  }
}
