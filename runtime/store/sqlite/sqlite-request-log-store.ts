// RequestLogStore for SQLite. node:sqlite is synchronous, so where a batch's inserts run matters: in
// a writer thread (log-writer-worker.ts) with a connection of its own when the process has a second
// CPU for it (affinity and cgroup quota: cpu-budget.ts), or on the serving thread a slice at a time,
// each slice its own transaction and a turn of the event loop between slices, when it has not. A
// thread on the one CPU there is buys nothing: the inserts take that CPU's time either way, and the
// thread adds a second V8 isolate (~25 MB of RSS under load) and a hand-over to it per batch. Reads,
// rarer and answered to an admin, stay on the main connection.
import { getCompileCacheDir } from 'node:module';
import { Worker } from 'node:worker_threads';
import { EMBEDDED_FILES, LOG_WRITER_WORKER } from '../../../compiler/config/embedded-files.ts';
import { type RecordBatch, type SharedRecords, sliceShared } from '../../core/record-batch.ts';
import type { RequestRecord } from '../../core/request-record.ts';
import type { RequestLogFilter, RequestLogPage, RequestLogStore } from '../request-log-store.ts';
import { ROWS_PER_INSERT, type SqlRequestLogStore } from '../sql/sql-request-log-store.ts';
import { DataRefusedError, StoreUnavailableError } from '../sql/sql-database.ts';
import { cpuBudget } from './cpu-budget.ts';
import type { InsertMessage, InsertReply } from './log-writer-worker.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Where inserts run: `auto` decides when the first batch is written, by the CPUs the process may use (cpu-budget.ts). */
export const LOG_WRITER_PLACEMENTS = ['auto', 'thread', 'main'] as const;
export type LogWriterPlacement = (typeof LOG_WRITER_PLACEMENTS)[number];

/**
 * Rows per transaction on the serving thread: ~0.6 ms of inserts between two turns of the event loop,
 * one full INSERT. Per record they cost what batches of 500 cost (`node bench/log-insert-bench.ts
 * --batch 128`); at 50 a commit's own writes start to show.
 */
const ROWS_PER_SLICE = ROWS_PER_INSERT;

export class SqliteRequestLogStore implements RequestLogStore {
  readonly #dataDir: string;
  readonly #main: SqlRequestLogStore;
  readonly #placement: LogWriterPlacement;
  /** Decided by the first batch; null until then. */
  #onThisThread: boolean | null = null;
  #worker: Worker | null = null;
  #next = 0;
  readonly #pending = new Map<number, { resolve(): void; reject(error: Error): void }>();
  readonly #inFlight = new Set<Promise<void>>();

  /** `main`: the store on the main connection, for reads, retention and inserts on this thread. */
  constructor(dataDir: string, main: SqlRequestLogStore, placement: LogWriterPlacement = 'auto') {
    this.#dataDir = dataDir;
    this.#main = main;
    this.#placement = placement;
  }

  /** Where inserts run; null until the first batch. */
  get writesOnThisThread(): boolean | null {
    return this.#onThisThread;
  }

  insert(batch: RecordBatch): Promise<void> {
    if (batch.count === 0) return Promise.resolve();
    // Decided here, not at start: the bench pins a process to a core only once it started.
    this.#onThisThread ??= this.#placement === 'main' || (this.#placement === 'auto' && cpuBudget() < 2);
    const done = this.#onThisThread ? this.#insertHere(batch.shared()) : this.#insertInThread(batch);
    const tracked = done.catch(() => undefined).finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
    return done;
  }

  list(filter: RequestLogFilter, page: { after?: string; limit: number }): Promise<RequestLogPage> {
    return this.#main.list(filter, page);
  }

  get(id: string, visibleTo?: string): Promise<RequestRecord | null> {
    return this.#main.get(id, visibleTo);
  }

  deleteOlderThan(ms: number, batch: number): Promise<number> {
    return this.#main.deleteOlderThan(ms, batch);
  }

  /** Waits for the batches in flight, then stops the worker (if one started). */
  async close(): Promise<void> {
    await Promise.all(this.#inFlight);
    const worker = this.#worker;
    if (worker === null) return;
    this.#worker = null;
    await worker.terminate();
  }

  /**
   * On the serving thread, a slice per transaction with a turn of the event loop between slices, so
   * requests wait for at most one slice. A slice that fails fails the batch; the log keeps the batch
   * and writes it again later, and the slices already committed are the same rows (ON CONFLICT DO NOTHING).
   */
  async #insertHere(shared: SharedRecords): Promise<void> {
    const count = shared.ends.length;
    for (let from = 0; from < count; from += ROWS_PER_SLICE) {
      if (from > 0) await nextTurn();
      await this.#main.insertShared(sliceShared(shared, from, Math.min(count, from + ROWS_PER_SLICE)));
    }
  }

  #insertInThread(batch: RecordBatch): Promise<void> {
    const worker = this.#started();
    const id = this.#next++;
    return new Promise<void>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      // Shared memory, not a copy: the batch stays as it is until the worker answers.
      worker.postMessage({ id, records: batch.shared() } satisfies InsertMessage);
    });
  }

  #started(): Worker {
    if (this.#worker !== null) return this.#worker;
    // A small heap: the worker only turns batches of JSON text into rows (its own isolate otherwise
    // grows like the main one, ~60 MB more RSS under load).
    // The process's compile cache, which bin/gateway.js turns on in code and a worker does not inherit
    // that way: through the variable the writer's modules load compiled, without Node's TypeScript
    // stripper in the worker (~11 MB of RSS).
    const cacheDir = getCompileCacheDir();
    const worker = new Worker(workerUrl(), {
      workerData: { dataDir: this.#dataDir },
      resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 48 },
      ...(cacheDir === undefined ? {} : { env: { ...process.env, NODE_COMPILE_CACHE: cacheDir } }),
    });
    // Never what keeps a process alive: the writer's own shutdown flush waits for its batches.
    worker.unref();
    worker.on('message', (reply: InsertReply) => {
      const waiting = this.#pending.get(reply.id);
      if (waiting === undefined) return;
      this.#pending.delete(reply.id);
      if (reply.ok) waiting.resolve();
      else waiting.reject(reply.kind === 'unavailable' ? new StoreUnavailableError(reply.message) : reply.kind === 'data-refused' ? new DataRefusedError(reply.message) : new Error(reply.message));
    });
    worker.on('error', (error) => this.#failAll(error));
    worker.on('exit', () => {
      if (this.#worker === worker) this.#worker = null;
      this.#failAll(new Error('the request-log writer thread stopped'));
    });
    this.#worker = worker;
    return worker;
  }

  #failAll(error: Error): void {
    for (const waiting of this.#pending.values()) waiting.reject(error);
    this.#pending.clear();
  }
}

/** The bundled worker's code in a one-file build (`gateway build` embeds it); the source file otherwise. */
function workerUrl(): URL {
  const bundled = EMBEDDED_FILES?.[LOG_WRITER_WORKER];
  return bundled === undefined ? new URL('./log-writer-worker.ts', import.meta.url) : new URL(`data:text/javascript,${encodeURIComponent(bundled)}`);
}
