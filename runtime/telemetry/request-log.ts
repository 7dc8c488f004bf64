// The request-log writer: finished records are queued in memory and written in batches, never on
// the request path and never awaited by it. The queue is bounded; past the bound a record is dropped
// and counted (never a blocked or crashed request). Records that could not be written are kept for
// the next flush while they fit. `close` writes what is queued (the server calls it once drained,
// so a SIGTERM loses no acknowledged record). Retention runs in the background.
import type { RequestRecord } from '../core/request-record.ts';
import { describeError, type GatewayLogger } from '../core/log.ts';
import type { RequestLogStore } from '../store/request-log-store.ts';

export interface RequestLogSettings {
  /** Records held in memory at most; past it a new record is dropped and counted. */
  queueMax: number;
  /** How often queued records are written. */
  flushMs: number;
  /** Written at once when this many are queued. */
  batchSize: number;
  /** Records older than this are deleted (0: kept forever). */
  retentionDays: number;
  /** How often retention runs. */
  retentionEveryMs: number;
}

export const DEFAULT_REQUEST_LOG_SETTINGS: RequestLogSettings = {
  queueMax: 20_000,
  flushMs: 500,
  // Larger batches saved no measurable CPU per record on SQLite (bench/log-insert-bench.ts --batch)
  // and cost the writer thread ~14 MB more at its peak.
  batchSize: 500,
  retentionDays: 30,
  retentionEveryMs: 60 * 60 * 1000,
};

const DAY_MS = 86_400_000;
const RETENTION_BATCH = 5_000;

export class RequestLog {
  readonly #store: RequestLogStore;
  readonly #logger: GatewayLogger;
  readonly #settings: RequestLogSettings;
  readonly #now: () => number;
  /** Records as JSON text: turned into text as they finish, so the queue holds one string each (see write). */
  #queue: string[] = [];
  #dropped = 0;
  #written = 0;
  #flushing: Promise<void> | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;
  #retentionTimer: ReturnType<typeof setInterval> | null = null;
  #closed = false;
  #failing = false;

  constructor(store: RequestLogStore, logger: GatewayLogger, settings: Partial<RequestLogSettings> = {}, now: () => number = Date.now) {
    this.#store = store;
    this.#logger = logger;
    this.#settings = { ...DEFAULT_REQUEST_LOG_SETTINGS, ...settings };
    this.#now = now;
  }

  /** Starts the flush and retention timers (unref'd: they never keep a process alive). */
  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => void this.flush(), this.#settings.flushMs);
    this.#timer.unref();
    if (this.#settings.retentionDays > 0) {
      this.#retentionTimer = setInterval(() => void this.applyRetention(), this.#settings.retentionEveryMs);
      this.#retentionTimer.unref();
    }
  }

  /** Queues a finished record. Never throws, never waits. */
  readonly write = (record: RequestRecord): void => {
    if (this.#closed || this.#queue.length >= this.#settings.queueMax) {
      this.#dropped++;
      return;
    }
    // Text now, not at the flush: a record queued for up to flushMs outlives young-generation
    // collections, and promoting and marking its ~40 objects cost more than the string does.
    this.#queue.push(JSON.stringify(record));
    if (this.#queue.length >= this.#settings.batchSize && this.#flushing === null) void this.flush();
  };

  /** Records dropped because the queue was full (or the log closed). */
  get dropped(): number {
    return this.#dropped;
  }

  get written(): number {
    return this.#written;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** Writes everything queued now; one flush at a time (a second caller waits for the running one, then flushes again). */
  async flush(): Promise<void> {
    while (this.#flushing !== null) await this.#flushing;
    if (this.#queue.length === 0) return;
    this.#flushing = this.#flushOnce().finally(() => {
      this.#flushing = null;
    });
    await this.#flushing;
  }

  async #flushOnce(): Promise<void> {
    const batch = this.#queue;
    this.#queue = [];
    try {
      await this.#store.insert(batch);
      this.#written += batch.length;
      if (this.#failing) this.#logger.info('request_log_recovered', { written: batch.length });
      this.#failing = false;
    } catch (error) {
      // Keep them for the next flush, oldest first, as far as the bound allows.
      const room = this.#settings.queueMax - this.#queue.length;
      const kept = batch.slice(Math.max(0, batch.length - room));
      this.#dropped += batch.length - kept.length;
      this.#queue = kept.concat(this.#queue);
      if (!this.#failing) this.#logger.error('request_log_write_failed', { queued: this.#queue.length, error: describeError(error) });
      this.#failing = true;
    }
  }

  /** Deletes records past the retention period, in bounded batches. */
  async applyRetention(): Promise<number> {
    if (this.#settings.retentionDays <= 0) return 0;
    const cutoff = this.#now() - this.#settings.retentionDays * DAY_MS;
    let deleted = 0;
    try {
      for (;;) {
        const n = await this.#store.deleteOlderThan(cutoff, RETENTION_BATCH);
        deleted += n;
        if (n < RETENTION_BATCH) break;
      }
    } catch (error) {
      this.#logger.error('request_log_retention_failed', { error: describeError(error) });
    }
    return deleted;
  }

  /** Stops the timers and writes what is queued; later records are dropped. */
  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    if (this.#retentionTimer !== null) clearInterval(this.#retentionTimer);
    this.#timer = this.#retentionTimer = null;
    await this.flush();
    // One more try for records a failing store kept.
    if (this.#queue.length > 0) await this.flush();
    this.#closed = true;
    if (this.#queue.length > 0) {
      this.#logger.error('request_log_lost_on_close', { records: this.#queue.length });
      this.#dropped += this.#queue.length;
      this.#queue = [];
    }
  }
}
