// The request-log writer: finished records are queued in memory and written in batches, never on
// the request path and never awaited by it. The queue is bounded; past the bound a record is dropped
// and counted (never a blocked or crashed request). Records that could not be written are kept for
// the next flush; while the store is away, a queue that reaches its bound is handed to `spill` (a
// file written to the store when it answers again: runtime/store/pending-files.ts), so an outage
// longer than the queue holds loses nothing either. `close` writes what is queued (the server calls
// it once drained, so a SIGTERM loses no acknowledged record), and spills what the store still
// refuses then, for the next start. Retention runs in the background.
import type { RequestRecord } from '../core/request-record.ts';
import { describeError, type GatewayLogger } from '../core/log.ts';
import { Outage } from '../core/outage.ts';
import type { RequestLogStore } from '../store/request-log-store.ts';
import { RecordBatch, recordReader } from '../core/record-batch.ts';
import { OneAtATime } from '../core/one-at-a-time.ts';
import { deleteInSlices } from '../store/delete-in-slices.ts';
import { DataRefusedError } from '../store/sql/sql-database.ts';

export interface RequestLogSettings {
  /** Records held in memory at most; past it a new record is dropped and counted. */
  queueMax: number;
  /** How often queued records are written. */
  flushMs: number;
  /** Written at once when this many are queued. */
  batchSize: number;
  /** Bytes of shared memory a batch of records is packed into (a larger record gets a batch of its own size). */
  batchBytes: number;
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
  // 500 records of a route with guardrails on input and output (~2 KB each); a plain route's take ~450 KB.
  batchBytes: 1 << 20,
  retentionDays: 30,
  retentionEveryMs: 60 * 60 * 1000,
};

const DAY_MS = 86_400_000;
/**
 * Records deleted per statement. On SQLite retention runs on the serving thread: 5,000 rows took
 * ~110 ms a statement and the batches ran back to back (a million old records held the gateway ~20 s);
 * 1,000 take ~15 ms, with a turn of the event loop after each.
 */
const RETENTION_BATCH = 1_000;
/** Emptied batches kept for reuse: one being written and one filling is the steady state. */
const SPARE_BATCHES = 2;

/** Keeps the records the store could not take, and writes kept ones when the store answers again. */
export interface LogSpill {
  /** Keeps the records' texts; resolves to where (a file's path) once they are kept. */
  keep(texts: readonly string[]): Promise<string>;
  storeIsBack(): void;
}

export class RequestLog {
  readonly #store: RequestLogStore;
  readonly #logger: GatewayLogger;
  readonly #settings: RequestLogSettings;
  readonly #now: () => number;
  /** Records packed as they finish (runtime/core/record-batch.ts), oldest first; the last batch takes new ones. */
  #batches: RecordBatch[];
  #queued = 0;
  readonly #spare: RecordBatch[] = [];
  #dropped = 0;
  #written = 0;
  readonly #flushes = new OneAtATime(() => this.#flushOnce());
  #timer: ReturnType<typeof setInterval> | null = null;
  #retentionTimer: ReturnType<typeof setInterval> | null = null;
  #closed = false;
  readonly #outage: Outage;

  readonly #spill: LogSpill | null;
  /** The queue being kept in a file while the store is away; one at a time (its texts are in memory until then). */
  #spilling: Promise<void> | null = null;
  /** A file was kept while a write was still waiting for the store: the next write that goes through sends it. */
  #keptUnwritten = false;

  /** `spill`: where records the store refused are kept (at close, or a full queue while it is away), and what to do when it is back. */
  constructor(store: RequestLogStore, logger: GatewayLogger, settings: Partial<RequestLogSettings> = {}, now: () => number = Date.now, spill: LogSpill | null = null) {
    this.#store = store;
    this.#spill = spill;
    this.#logger = logger;
    this.#outage = new Outage(logger, 'request_log_write_failed', 'request_log_recovered', 'error');
    this.#settings = { ...DEFAULT_REQUEST_LOG_SETTINGS, ...settings };
    this.#now = now;
    this.#batches = [new RecordBatch(this.#settings.batchBytes)];
  }

  /** Starts the flush and retention timers (unref'd: they never keep a process alive). */
  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => void this.flush(), this.#settings.flushMs);
    this.#timer.unref();
    this.startRetention();
  }

  /**
   * Deletes records past the retention now, off the caller's path, and then every retentionEveryMs.
   * At start too: a process restarted more often than that (a deploy every half hour) would
   * otherwise never delete one. Also with the log off: what it wrote before is still served.
   */
  startRetention(): void {
    if (this.#retentionTimer !== null || this.#settings.retentionDays <= 0) return;
    this.#retentionTimer = setInterval(() => void this.applyRetention(), this.#settings.retentionEveryMs);
    this.#retentionTimer.unref();
    void this.applyRetention();
  }

  /** Queues a finished record. Never throws, never waits. */
  readonly write = (record: RequestRecord): void => {
    if (this.#closed || (this.#queued >= this.#settings.queueMax && !this.#spillQueue())) {
      this.#dropped++;
      return;
    }
    // Bytes now, not at the flush: a record queued for up to flushMs as objects or as a string
    // outlives young-generation collections and is promoted (see runtime/core/record-batch.ts).
    const text = JSON.stringify(record);
    let open = this.#batches[this.#batches.length - 1]!;
    if (!open.append(text)) {
      open = this.#newBatch(Buffer.byteLength(text));
      this.#batches.push(open);
      open.append(text);
    }
    this.#queued++;
    if ((this.#queued >= this.#settings.batchSize || this.#batches.length > 1) && !this.#flushes.running) void this.flush();
  };

  /** Records dropped because the queue was full (or the log closed). */
  get dropped(): number {
    return this.#dropped;
  }

  get written(): number {
    return this.#written;
  }

  get queued(): number {
    return this.#queued;
  }

  /** Writes everything queued now; one flush at a time (runtime/core/one-at-a-time.ts). */
  flush(): Promise<void> {
    return this.#flushes.run();
  }

  async #flushOnce(): Promise<void> {
    if (this.#queued === 0) return;
    const batches = this.#batches;
    this.#batches = [this.#newBatch(0)];
    this.#queued = 0;
    for (let i = 0; i < batches.length; i++) {
      const batch = batches[i]!;
      if (batch.count === 0) {
        this.#recycle(batch);
        continue;
      }
      try {
        try {
          await this.#store.insert(batch);
        } catch (error) {
          // The store refused values of these records: one bad record must not hold back the others for ever.
          if (!(error instanceof DataRefusedError)) throw error;
          await this.#insertEach(batch, error);
        }
        this.#written += batch.count;
        // Records kept in files while the store was away (by an earlier stop, or by this log while a
        // write hung) go in now that it answers.
        if (this.#outage.recovered({ written: batch.count }) || this.#keptUnwritten) {
          this.#keptUnwritten = false;
          this.#spill?.storeIsBack();
        }
        this.#recycle(batch);
      } catch (error) {
        this.#keep(batches.slice(i));
        this.#outage.failed(() => ({ queued: this.#queued, error: describeError(error) }));
        return;
      }
    }
  }

  /**
   * Writes a batch the store refused one record at a time, and drops (counts and logs) the records it
   * refuses on their own values; the batch is left holding the ones written. Any other failure meanwhile
   * throws, and the whole batch is kept (records written twice are the same rows).
   */
  async #insertEach(batch: RecordBatch, batchError: unknown): Promise<void> {
    const shared = batch.shared();
    const textAt = recordReader(shared);
    const written: string[] = [];
    let refused = 0;
    let firstError: unknown = null;
    for (let i = 0; i < shared.ends.length; i++) {
      const text = textAt(i);
      try {
        await this.#store.insert(RecordBatch.of([text]));
        written.push(text);
      } catch (error) {
        if (!(error instanceof DataRefusedError)) throw error;
        refused++;
        firstError ??= error;
      }
    }
    // Refused as a batch and taken one by one: the batch's failure was passing, not a record's.
    if (refused === 0) return;
    this.#dropped += refused;
    this.#logger.error('request_log_records_refused', { records: refused, written: written.length, error: describeError(firstError ?? batchError), note: 'the store refused these records on their own; they are dropped so the others are written' });
    batch.clear();
    for (const text of written) batch.append(text);
  }

  /**
   * Batches a store refused, kept for the next flush ahead of newer records. Past the bound, the
   * whole queue goes to the spill file; without one (or with a spill still being written), the
   * oldest are dropped.
   */
  #keep(failed: RecordBatch[]): void {
    const refused = failed.reduce((n, batch) => n + batch.count, 0);
    if (refused + this.#queued > this.#settings.queueMax && this.#spill !== null && this.#spilling === null) {
      this.#batches = failed.concat(this.#batches);
      this.#queued += refused;
      this.#spillQueue();
      return;
    }
    let over = refused + this.#queued - this.#settings.queueMax;
    for (const batch of failed) {
      if (over <= 0) break;
      const dropped = Math.min(over, batch.count);
      batch.dropOldest(dropped);
      this.#dropped += dropped;
      over -= dropped;
    }
    const kept = failed.filter((batch) => batch.count > 0);
    this.#queued += kept.reduce((n, batch) => n + batch.count, 0);
    this.#batches = kept.concat(this.#batches);
  }

  /**
   * While the store is away, or has not answered the write in flight (a database that stopped
   * answering takes its statement timeout, 30 s, to fail), hands every queued record to the spill
   * file and empties the queue; false (nothing done) when neither holds, there is no spill, or one is
   * still being written. Once the file is whole, it is sent back now if the store answers (it came
   * back while the file was written), else by the next write that goes through.
   */
  #spillQueue(): boolean {
    const spill = this.#spill;
    if (spill === null || this.#spilling !== null || (!this.#outage.down && !this.#flushes.running)) return false;
    const texts = this.#takeTexts();
    this.#spilling = spill.keep(texts).then(
      (file) => {
        this.#logger.warn('request_log_spilled', { records: texts.length, file, note: 'the store is away: they are written when it answers again, or by the next start' });
        if (this.#outage.down || this.#flushes.running) this.#keptUnwritten = true;
        else spill.storeIsBack();
      },
      (error: unknown) => {
        this.#dropped += texts.length;
        this.#logger.error('request_log_spill_failed', { records: texts.length, error: describeError(error) });
      },
    ).finally(() => {
      this.#spilling = null;
    });
    return true;
  }

  /** Every queued record's text, oldest first; the queue is left empty. */
  #takeTexts(): string[] {
    const texts: string[] = [];
    for (const batch of this.#batches) {
      const shared = batch.shared();
      const textAt = recordReader(shared);
      for (let i = 0; i < shared.ends.length; i++) texts.push(textAt(i));
      this.#recycle(batch);
    }
    this.#batches = [this.#newBatch(0)];
    this.#queued = 0;
    return texts;
  }

  /** A batch for at least `bytes` more: a spare one when it is large enough. */
  #newBatch(bytes: number): RecordBatch {
    const spare = this.#spare.pop();
    if (spare !== undefined && spare.capacity >= bytes) return spare;
    if (spare !== undefined) this.#spare.push(spare);
    return new RecordBatch(Math.max(this.#settings.batchBytes, bytes));
  }

  #recycle(batch: RecordBatch): void {
    // Only batches of the usual size: one made for an outsized record is not kept around.
    if (batch.capacity !== this.#settings.batchBytes || this.#spare.length >= SPARE_BATCHES) return;
    batch.clear();
    this.#spare.push(batch);
  }

  /** Deletes records past the retention period, in bounded batches with the event loop let in between. */
  async applyRetention(): Promise<number> {
    if (this.#settings.retentionDays <= 0) return 0;
    const cutoff = this.#now() - this.#settings.retentionDays * DAY_MS;
    try {
      return await deleteInSlices((slice) => this.#store.deleteOlderThan(cutoff, slice), RETENTION_BATCH);
    } catch (error) {
      this.#logger.error('request_log_retention_failed', { error: describeError(error) });
      return 0;
    }
  }

  /** Stops the timers and writes what is queued; later records are dropped. */
  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    if (this.#retentionTimer !== null) clearInterval(this.#retentionTimer);
    this.#timer = this.#retentionTimer = null;
    await this.flush();
    // Records that finished while it ran; not a second try at a store that just failed (a stop must not wait twice).
    if (this.#queued > 0 && !this.#outage.down) await this.flush();
    this.#closed = true;
    // A spill of the running outage finishes first: its file is then there for the next start.
    while (this.#spilling !== null) await this.#spilling;
    if (this.#queued === 0) return;
    const texts = this.#takeTexts();
    if (this.#spill !== null) {
      try {
        const file = await this.#spill.keep(texts);
        this.#logger.warn('request_log_spilled', { records: texts.length, file, note: 'the store did not take them; the next start writes them' });
        return;
      } catch (error) {
        this.#logger.error('request_log_spill_failed', { records: texts.length, error: describeError(error) });
      }
    }
    this.#logger.error('request_log_lost_on_close', { records: texts.length });
    this.#dropped += texts.length;
  }
}
