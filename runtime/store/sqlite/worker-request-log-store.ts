// RequestLogStore for SQLite whose inserts run in a worker thread (log-writer-worker.ts); reads,
// rarer and answered to an admin, stay on the main connection. The worker starts on the first batch.
import { getCompileCacheDir } from 'node:module';
import { Worker } from 'node:worker_threads';
import { EMBEDDED_FILES, LOG_WRITER_WORKER } from '../../../compiler/config/embedded-files.ts';
import type { RecordBatch } from '../../core/record-batch.ts';
import type { RequestRecord } from '../../core/request-record.ts';
import type { RequestLogFilter, RequestLogPage, RequestLogStore } from '../request-log-store.ts';
import type { InsertMessage, InsertReply } from './log-writer-worker.ts';

export class WorkerRequestLogStore implements RequestLogStore {
  readonly #dataDir: string;
  readonly #reads: RequestLogStore;
  #worker: Worker | null = null;
  #next = 0;
  readonly #pending = new Map<number, { resolve(): void; reject(error: Error): void }>();
  readonly #inFlight = new Set<Promise<void>>();

  /** `reads`: the main connection's store, for list, get and retention. */
  constructor(dataDir: string, reads: RequestLogStore) {
    this.#dataDir = dataDir;
    this.#reads = reads;
  }

  insert(batch: RecordBatch): Promise<void> {
    if (batch.count === 0) return Promise.resolve();
    const worker = this.#started();
    const id = this.#next++;
    const done = new Promise<void>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      // Shared memory, not a copy: the batch stays as it is until the worker answers.
      worker.postMessage({ id, records: batch.shared() } satisfies InsertMessage);
    });
    const tracked = done.catch(() => undefined).finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
    return done;
  }

  list(filter: RequestLogFilter, page: { after?: string; limit: number }): Promise<RequestLogPage> {
    return this.#reads.list(filter, page);
  }

  get(id: string, visibleTo?: string): Promise<RequestRecord | null> {
    return this.#reads.get(id, visibleTo);
  }

  deleteOlderThan(ms: number, batch: number): Promise<number> {
    return this.#reads.deleteOlderThan(ms, batch);
  }

  /** Waits for the batches in flight, then stops the worker. */
  async close(): Promise<void> {
    const worker = this.#worker;
    if (worker === null) return;
    await Promise.all(this.#inFlight);
    this.#worker = null;
    await worker.terminate();
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
      else waiting.reject(new Error(reply.message));
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
