// What the gateway rewrote of the model's signed reasoning (signed-reasoning.ts), kept so that the
// original goes back to the provider when a client sends the rewritten block in a later turn: by the
// block's signature, the rewritten text's hash beside the original text. A block is put back only when
// it comes with both the signature and the very text the gateway gave out; any other text stays as the
// client sent it (the provider judges it). One interface over this process's memory (default) and
// Redis (REDIS_URL: every process puts back what any other rewrote); one conformance suite runs
// against both (test/guardrails/reasoning-memory.conformance.test.ts).
import { createHash } from 'node:crypto';
import type { RewrittenBlock, SignedText } from './signed-reasoning.ts';

/**
 * `scope` is the organisation of the key that was answered: an original is put back only into a
 * request of the same organisation (a tenant's signature and text, seen by another, finds nothing).
 */
export interface ReasoningMemory {
  /** Keeps each block's original under its scope and signature, for `REASONING_TTL_MS` from its last use. */
  remember(scope: string, blocks: readonly RewrittenBlock[]): Promise<void>;
  /** The original text of each of `blocks` the gateway rewrote to that very text in `scope`, by signature; absent for every other. */
  recall(scope: string, blocks: readonly SignedText[]): Promise<Map<string, string>>;
}

/** How long an original is kept after it was last given out or put back: a day, the length of a working session's conversation. */
export const REASONING_TTL_MS = 24 * 3_600_000;

/** The most this process's memory keeps of originals (without REDIS_URL): the least recently used go past it. */
export const REASONING_MEMORY_MAX_BYTES = 32 * 1024 * 1024;

/** What a block is kept under: a digest of its scope and signature (signatures run to kilobytes). */
export function signatureKey(scope: string, signature: string): string {
  return createHash('sha256').update(scope).update('\0').update(signature).digest('base64url');
}

/** The digest of a rewritten text that a block sent back must match. */
export function textDigest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

interface Kept {
  rewritten: string;
  original: string;
  expiresAt: number;
  bytes: number;
}

/**
 * This process's memory, bounded by bytes: the least recently used originals go first (a Map in
 * recency order, an entry inserted again when used). Rewritten reasoning is rare (an output
 * transformer changed a thinking block), so the Map stays small and evicting walks few holes.
 */
export class MemoryReasoningMemory implements ReasoningMemory {
  readonly #kept = new Map<string, Kept>();
  readonly #maxBytes: number;
  readonly #now: () => number;
  #bytes = 0;

  constructor(maxBytes: number, now: () => number = Date.now) {
    this.#maxBytes = maxBytes;
    this.#now = now;
  }

  get bytes(): number {
    return this.#bytes;
  }

  remember(scope: string, blocks: readonly RewrittenBlock[]): Promise<void> {
    const expiresAt = this.#now() + REASONING_TTL_MS;
    for (const block of blocks) {
      const key = signatureKey(scope, block.signature);
      this.#drop(key);
      // UTF-16 code units, two bytes each, and the two digests.
      const bytes = 2 * (block.original.length + key.length + 43);
      if (bytes > this.#maxBytes) continue;
      this.#kept.set(key, { rewritten: textDigest(block.rewritten), original: block.original, expiresAt, bytes });
      this.#bytes += bytes;
    }
    for (const key of this.#kept.keys()) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#drop(key);
    }
    return Promise.resolve();
  }

  recall(scope: string, blocks: readonly SignedText[]): Promise<Map<string, string>> {
    const originals = new Map<string, string>();
    const now = this.#now();
    for (const block of blocks) {
      const key = signatureKey(scope, block.signature);
      const kept = this.#kept.get(key);
      if (kept === undefined) continue;
      if (kept.expiresAt <= now) {
        this.#drop(key);
        continue;
      }
      if (kept.rewritten !== textDigest(block.text)) continue;
      originals.set(block.signature, kept.original);
      // Used: the most recent now, and kept a day from now.
      this.#kept.delete(key);
      kept.expiresAt = now + REASONING_TTL_MS;
      this.#kept.set(key, kept);
    }
    return Promise.resolve(originals);
  }

  #drop(key: string): void {
    const kept = this.#kept.get(key);
    if (kept === undefined) return;
    this.#kept.delete(key);
    this.#bytes -= kept.bytes;
  }
}
