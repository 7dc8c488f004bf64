// Finished request-log records, packed as UTF-8 in shared memory the moment each one finishes. A
// record queued as a JS string lives until its batch is written (up to the flush interval), outlives
// young-generation collections and is promoted: copied twice, then marked by every full collection
// while old space grows by a batch at a time. Bytes outside the heap cost the collector nothing, the
// record's string dies young, and the SQLite writer thread reads the bytes where they are (the
// memory is shared, not copied). A route with guardrails on input and output (~2 KB records) spent
// ~10% less CPU per request than with queued strings, mostly in V8's GC helper threads (docs/decisions.md).
import { Buffer } from 'node:buffer';

/** What a worker receives: the shared memory and where its records end (record i starts where i-1 ended, the first at `start`). */
export interface SharedRecords {
  buffer: SharedArrayBuffer;
  start: number;
  ends: number[];
}

export class RecordBatch {
  readonly #bytes: Buffer;
  /** The byte offset where each record ends, oldest first, from `#first` on. */
  #ends: number[] = [];
  /** Records before this index were dropped (a failing store's batch trimmed to the queue's bound). */
  #first = 0;
  #used = 0;

  constructor(capacityBytes: number) {
    this.#bytes = Buffer.from(new SharedArrayBuffer(capacityBytes));
  }

  /** A batch holding `texts`, for callers that have the records as text already (tests, bench/log-insert-bench.ts). */
  static of(texts: readonly string[]): RecordBatch {
    const batch = new RecordBatch(Math.max(1, texts.reduce((n, text) => n + Buffer.byteLength(text), 0)));
    for (const text of texts) batch.append(text);
    return batch;
  }

  get count(): number {
    return this.#ends.length - this.#first;
  }

  get capacity(): number {
    return this.#bytes.length;
  }

  /** Appends one record's JSON text; false, with nothing written, when it does not fit. */
  append(text: string): boolean {
    const room = this.#bytes.length - this.#used;
    // UTF-8 takes at most 3 bytes per UTF-16 unit: only a nearly full batch measures the text first.
    if (text.length * 3 > room && Buffer.byteLength(text) > room) return false;
    this.#used += this.#bytes.write(text, this.#used);
    this.#ends.push(this.#used);
    return true;
  }

  /** Forgets the `n` oldest records. */
  dropOldest(n: number): void {
    this.#first = Math.min(this.#ends.length, this.#first + n);
  }

  /** The records for another thread, without copying them. The batch must not change until that thread is done. */
  shared(): SharedRecords {
    const start = this.#first === 0 ? 0 : this.#ends[this.#first - 1]!;
    return { buffer: this.#bytes.buffer as SharedArrayBuffer, start, ends: this.#first === 0 ? this.#ends : this.#ends.slice(this.#first) };
  }

  /** Empties the batch for reuse. */
  clear(): void {
    this.#ends = [];
    this.#first = 0;
    this.#used = 0;
  }
}

/** Records `from` (inclusive) to `to` (exclusive) of `shared`, over the same memory. */
export function sliceShared(shared: SharedRecords, from: number, to: number): SharedRecords {
  return { buffer: shared.buffer, start: from === 0 ? shared.start : shared.ends[from - 1]!, ends: shared.ends.slice(from, to) };
}

/** Reads record `i` of `shared` when asked: a writer that decodes a chunk at a time keeps no more of them alive than it works on. */
export function recordReader(shared: SharedRecords): (i: number) => string {
  const bytes = Buffer.from(shared.buffer);
  const ends = shared.ends;
  return (i) => bytes.toString('utf8', i === 0 ? shared.start : ends[i - 1], ends[i]);
}
