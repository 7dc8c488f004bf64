// When the semantic cache's embeddings route fails, the next requests do not each try it again: a
// provider that stopped answering would add its whole timeout (up to 10 s) to every request of a
// semantic route, for a lookup that is only an optimisation. After a failure, embedding is skipped
// (the request is a SEMANTIC MISS at once) for a wait that doubles with each failure in a row, from
// 1 s to 30 s; then one request tries again while the others go on skipping, and a success ends it.

export const FIRST_WAIT_MS = 1000;
export const LONGEST_WAIT_MS = 30_000;

/** A call let through; `probe`: the one call after failures, whose end lets the next probe. */
export interface EmbeddingCall {
  readonly probe: boolean;
}

const CALL: EmbeddingCall = Object.freeze({ probe: false });
const PROBE: EmbeddingCall = Object.freeze({ probe: true });

export class EmbeddingBackoff {
  readonly #now: () => number;
  #failures = 0;
  #retryAt = 0;
  #probing = false;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** The call this request may make, or null: skip the embedding. */
  tryCall(): EmbeddingCall | null {
    if (this.#failures === 0) return CALL;
    if (this.#probing || this.#now() < this.#retryAt) return null;
    this.#probing = true;
    return PROBE;
  }

  succeeded(call: EmbeddingCall): void {
    this.#failures = 0;
    if (call.probe) this.#probing = false;
  }

  /** A failure of the route (not of the request: a client that left says nothing about it). */
  failed(call: EmbeddingCall): void {
    this.#failures++;
    if (call.probe) this.#probing = false;
    this.#retryAt = this.#now() + Math.min(FIRST_WAIT_MS * 2 ** (this.#failures - 1), LONGEST_WAIT_MS);
  }

  /** Ends a call that said nothing about the route (its request was aborted). */
  released(call: EmbeddingCall): void {
    if (call.probe) this.#probing = false;
  }
}
