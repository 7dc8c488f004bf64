// The request-log writer (runtime/telemetry/request-log.ts) on the real stores of both backends: the
// queue is bounded and counts what it drops, a batch the store refused is written by a later flush,
// close writes what is queued, and what it wrote reads back as the records that finished; while the
// store is away, a full queue goes to a file that is written back when the store answers.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRequestRecord, type RequestRecord } from '../../runtime/core/request-record.ts';
import type { GatewayLogger } from '../../runtime/core/log.ts';
import type { RecordBatch } from '../../runtime/core/record-batch.ts';
import type { RequestLogStore } from '../../runtime/store/request-log-store.ts';
import { RequestLog } from '../../runtime/telemetry/request-log.ts';
import { keepPending, takePending } from '../../runtime/store/pending-files.ts';
import { insertAll } from '../../runtime/api/logs/index.ts';
import { BACKENDS, storeForSuite } from '../store/backends.ts';
import { until } from '../jobs/harness.ts';
import { tempDirs } from '../support/temp-dirs.ts';
import pg from 'pg';

/** The real store, made to refuse writes while `down` is set (a database that went away and came back). */
class Interrupted implements RequestLogStore {
  down = false;
  /** Called as each insert starts: records that finish while a batch is being written. */
  onInsert: (() => void) | null = null;
  readonly #store: RequestLogStore;

  constructor(store: RequestLogStore) {
    this.#store = store;
  }

  insert(batch: RecordBatch): Promise<void> {
    this.onInsert?.();
    return this.down ? Promise.reject(new Error('connection refused')) : this.#store.insert(batch);
  }

  list: RequestLogStore['list'] = (filter, page) => this.#store.list(filter, page);
  get: RequestLogStore['get'] = (id, visibleTo) => this.#store.get(id, visibleTo);
  deleteOlderThan: RequestLogStore['deleteOlderThan'] = (ms, batch) => this.#store.deleteOlderThan(ms, batch);
}

function recorder(): GatewayLogger & { events: string[] } {
  const events: string[] = [];
  return { events, info: (event) => void events.push(event), warn: (event) => void events.push(event), error: (event) => void events.push(event) };
}

/** Waits until `event` was logged. */
function logged(logger: { events: string[] }, event: string): Promise<string[]> {
  return until(async () => logger.events, (events) => events.includes(event), 5_000, event);
}

const folder = tempDirs('gateway-spill');

describe.each(BACKENDS)('request log writer on %s', (backend) => {
  const ctx = storeForSuite(backend, { beforeAll, afterAll });
  let run = 0;

  /** Records of one test, told apart by their trace ids. */
  function records(n: number, status = 200): RequestRecord[] {
    run++;
    return Array.from({ length: n }, (_, i) => ({ ...newRequestRecord(`writer-${backend}-${run}-${i}`, 'POST', '/v1/chat/completions', 'http'), status, metadata: { run: `${backend}-${run}` } }));
  }

  async function stored(tag: RequestRecord[]): Promise<RequestRecord[]> {
    const page = await ctx.store.requestLogs.list({ metadata: tag[0]!.metadata }, { limit: 1000 });
    return page.records;
  }

  it('drops and counts records past the bound, and writes the rest whole', async () => {
    const log = new RequestLog(ctx.store.requestLogs, recorder(), { queueMax: 5, batchSize: 1000 });
    const finished = records(8);
    for (const record of finished) log.write(record);
    expect({ queued: log.queued, dropped: log.dropped }).toEqual({ queued: 5, dropped: 3 });
    await log.flush();
    expect(log.written).toBe(5);
    const read = await stored(finished);
    expect(read.map((r) => r.traceId).sort()).toEqual(finished.slice(0, 5).map((r) => r.traceId).sort());
    expect(read.find((r) => r.traceId === finished[0]!.traceId)).toEqual(JSON.parse(JSON.stringify(finished[0])));
  });

  it('retention deletes what is past it as soon as it starts, without the writer started (the log off)', async () => {
    const now = Date.now();
    const old = records(3).map((r) => ({ ...newRequestRecord(r.traceId, 'POST', '/v1/chat/completions', 'http', now - 40 * 86_400_000), metadata: r.metadata }));
    const recent = records(2).map((r) => ({ ...r, metadata: old[0]!.metadata }));
    const writer = new RequestLog(ctx.store.requestLogs, recorder());
    for (const record of [...old, ...recent]) writer.write(record);
    await writer.close();
    expect((await stored(old)).length).toBe(5);
    const retention = new RequestLog(ctx.store.requestLogs, recorder(), { retentionDays: 30, retentionEveryMs: 3_600_000 });
    retention.startRetention();
    await until(async () => (await stored(old)).length, (n) => n === 2, 5_000, 'records past retention deleted');
    expect((await stored(old)).map((r) => r.traceId).sort()).toEqual(recent.map((r) => r.traceId).sort());
    await retention.close();
    expect(retention.written).toBe(0);
  });

  it('retention deletes a large backlog in batches with the event loop let in between', async () => {
    const old = Date.now() - 90 * 86_400_000;
    const backlog = records(2_500).map((r, i) => ({ ...newRequestRecord(r.traceId, 'POST', '/v1/chat/completions', 'http', old + i), metadata: r.metadata }));
    const writer = new RequestLog(ctx.store.requestLogs, recorder(), { queueMax: 10_000, batchSize: 10_000 });
    for (const record of backlog) writer.write(record);
    await writer.close();
    let turns = 0;
    let ticking = true;
    const tick = (): void => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const deleted = await new RequestLog(ctx.store.requestLogs, recorder(), { retentionDays: 60 }).applyRetention();
    ticking = false;
    expect(deleted).toBeGreaterThanOrEqual(2_500);
    expect(await stored(backlog)).toEqual([]);
    // At least three batches of 1,000, each followed by a turn (SQLite deletes synchronously).
    expect(turns).toBeGreaterThanOrEqual(2);
  });

  it('keeps a refused batch for the next flush, logs the failure once and the recovery', async () => {
    const store = new Interrupted(ctx.store.requestLogs);
    const logger = recorder();
    let backs = 0;
    const log = new RequestLog(store, logger, { queueMax: 100, batchSize: 1000 }, Date.now, { keep: async () => 'unused', storeIsBack: () => void backs++ });
    const finished = records(4);
    store.down = true;
    for (const record of finished.slice(0, 2)) log.write(record);
    await log.flush();
    for (const record of finished.slice(2)) log.write(record);
    await log.flush();
    expect({ queued: log.queued, written: log.written, dropped: log.dropped }).toEqual({ queued: 4, written: 0, dropped: 0 });
    expect(logger.events).toEqual(['request_log_write_failed']);
    store.down = false;
    await log.flush();
    expect({ queued: log.queued, written: log.written }).toEqual({ queued: 0, written: 4 });
    expect(logger.events).toEqual(['request_log_write_failed', 'request_log_recovered']);
    // The store is back: records an earlier stop kept are written now too.
    expect(backs).toBe(1);
    expect((await stored(finished)).length).toBe(4);
  });

  it('a refused batch keeps only what fits the bound, oldest dropped first', async () => {
    const store = new Interrupted(ctx.store.requestLogs);
    const log = new RequestLog(store, recorder(), { queueMax: 3, batchSize: 1000 });
    const finished = records(3);
    store.down = true;
    for (const record of finished) log.write(record);
    await log.flush();
    const later = records(2).map((r) => ({ ...r, metadata: finished[0]!.metadata }));
    for (const record of later) log.write(record);
    // The refused three were kept; the two later ones found the queue full.
    expect({ queued: log.queued, dropped: log.dropped }).toEqual({ queued: 3, dropped: 2 });
    store.down = false;
    await log.close();
    expect((await stored(finished)).map((r) => r.traceId).sort()).toEqual(finished.map((r) => r.traceId).sort());
  });

  it('while the store is away, a queue at its bound goes to a file, written back once the store answers', async () => {
    const dataDir = folder();
    const store = new Interrupted(ctx.store.requestLogs);
    const logger = recorder();
    const restore = () => void takePending(dataDir, 'request-log', (lines) => insertAll(store, lines), logger);
    const log = new RequestLog(store, logger, { queueMax: 3, batchSize: 1000, flushMs: 60_000 }, Date.now, { keep: (texts) => keepPending(dataDir, 'request-log', texts), storeIsBack: restore });
    const finished = records(3);
    const later = records(2).map((r) => ({ ...r, metadata: finished[0]!.metadata }));
    store.down = true;
    for (const record of finished) log.write(record);
    await log.flush();
    // The refused three fill the queue; the next record finds it full and sends the three to a file.
    for (const record of later) log.write(record);
    expect({ queued: log.queued, dropped: log.dropped }).toEqual({ queued: 2, dropped: 0 });
    await logged(logger, 'request_log_spilled');
    expect(readdirSync(dataDir)).toEqual([expect.stringMatching(/^request-log-pending-.*\.jsonl$/)]);
    store.down = false;
    await log.flush();
    await logged(logger, 'pending_writes_restored');
    expect(logger.events).toEqual(['request_log_write_failed', 'request_log_spilled', 'request_log_recovered', 'pending_writes_restored']);
    expect(readdirSync(dataDir)).toEqual([]);
    expect((await stored(finished)).map((r) => r.traceId).sort()).toEqual([...finished, ...later].map((r) => r.traceId).sort());
    expect(log.dropped).toBe(0);
  });

  it('a full queue while a write waits on a store that does not answer goes to a file too, sent once that write goes through', async () => {
    const dataDir = folder();
    const store = new Interrupted(ctx.store.requestLogs);
    const logger = recorder();
    const { promise: answered, resolve: answer } = Promise.withResolvers<void>();
    let hung = true;
    // The first insert waits (a database gone silent, before its statement timeout), then goes through.
    const silent: RequestLogStore = { list: store.list, get: store.get, deleteOlderThan: store.deleteOlderThan, insert: async (batch) => {
      if (hung) {
        hung = false;
        await answered;
      }
      return store.insert(batch);
    } };
    const restore = () => void takePending(dataDir, 'request-log', (lines) => insertAll(store, lines), logger);
    const log = new RequestLog(silent, logger, { queueMax: 3, batchSize: 1000, flushMs: 60_000 }, Date.now, { keep: (texts) => keepPending(dataDir, 'request-log', texts), storeIsBack: restore });
    const finished = records(7).map((r, i, all) => ({ ...r, metadata: all[0]!.metadata }));
    for (const record of finished.slice(0, 2)) log.write(record);
    const writing = log.flush();
    // The write hangs; three more fill the queue, and the next finds it full: a file, not a drop.
    for (const record of finished.slice(2)) log.write(record);
    await logged(logger, 'request_log_spilled');
    expect(log.dropped).toBe(0);
    expect(logger.events).not.toContain('pending_writes_restored');
    answer();
    await writing;
    await log.flush();
    await logged(logger, 'pending_writes_restored');
    expect((await stored(finished)).map((r) => r.traceId).sort()).toEqual(finished.map((r) => r.traceId).sort());
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('a file still being written when the store comes back is written back once it is whole', async () => {
    const dataDir = folder();
    const store = new Interrupted(ctx.store.requestLogs);
    const logger = recorder();
    const { promise: gate, resolve: open } = Promise.withResolvers<void>();
    let backs = 0;
    const restore = () => {
      backs++;
      void takePending(dataDir, 'request-log', (lines) => insertAll(store, lines), logger);
    };
    const log = new RequestLog(store, logger, { queueMax: 2, batchSize: 1000, flushMs: 60_000 }, Date.now, { keep: (texts) => gate.then(() => keepPending(dataDir, 'request-log', texts)), storeIsBack: restore });
    const finished = records(3);
    store.down = true;
    for (const record of finished.slice(0, 2)) log.write(record);
    await log.flush();
    log.write(finished[2]!);
    store.down = false;
    await log.flush();
    // Back before the file was there: the write-back it started found nothing.
    expect(backs).toBe(1);
    open();
    await logged(logger, 'pending_writes_restored');
    expect(backs).toBe(2);
    expect((await stored(finished)).map((r) => r.traceId).sort()).toEqual(finished.map((r) => r.traceId).sort());
  });

  it('a spill that fails drops (and counts) its records, and the queue takes new ones', async () => {
    const store = new Interrupted(ctx.store.requestLogs);
    const logger = recorder();
    const log = new RequestLog(store, logger, { queueMax: 2, batchSize: 1000, flushMs: 60_000 }, Date.now, { keep: async () => { throw new Error('ENOSPC: no space left on device'); }, storeIsBack: () => undefined });
    const finished = records(3);
    store.down = true;
    for (const record of finished.slice(0, 2)) log.write(record);
    await log.flush();
    log.write(finished[2]!);
    await logged(logger, 'request_log_spill_failed');
    expect({ queued: log.queued, dropped: log.dropped }).toEqual({ queued: 1, dropped: 2 });
    store.down = false;
    await log.close();
    expect((await stored(finished)).map((r) => r.traceId)).toEqual([finished[2]!.traceId]);
  });

  it('a store slow to fail gets one flush at a time, not one per timer tick queued behind it; close waits for one', async () => {
    const store = new Interrupted(ctx.store.requestLogs);
    let inserts = 0;
    // Fails after 100 ms, as a database that times out does; the timer ticks every 5 ms meanwhile.
    const slow: RequestLogStore = { ...store, list: store.list, get: store.get, deleteOlderThan: store.deleteOlderThan, insert: async (batch) => {
      inserts++;
      await new Promise((resolve) => setTimeout(resolve, 100));
      return store.insert(batch);
    } };
    store.down = true;
    const log = new RequestLog(slow, recorder(), { flushMs: 5, batchSize: 1000 }, Date.now, { keep: async () => 'kept', storeIsBack: () => undefined });
    log.start();
    const finished = records(2);
    for (const record of finished) log.write(record);
    await new Promise((resolve) => setTimeout(resolve, 550));
    // ~5 inserts of 100 ms in 550 ms; the ~100 ticks meanwhile share the one flush after each.
    expect(inserts).toBeGreaterThanOrEqual(3);
    expect(inserts).toBeLessThanOrEqual(7);
    const closing = Date.now();
    await log.close();
    // The running flush and one more, then the file: not the ticks' flushes back to back.
    expect(Date.now() - closing).toBeLessThan(600);
  });

  it('records outgrowing a batch go on in the next; one larger than a batch gets one of its own; all read back whole', async () => {
    const log = new RequestLog(ctx.store.requestLogs, recorder(), { batchSize: 1000, batchBytes: 4096, flushMs: 60_000 });
    const finished = records(30);
    const run = finished[0]!.metadata.run!;
    for (const [i, r] of finished.entries()) r.metadata = { run, note: i === 7 ? 'ü😀'.repeat(3000) : `n°${i} ✓ 日本` };
    for (const record of finished) log.write(record);
    await log.close();
    expect(log.written).toBe(30);
    const read = (await ctx.store.requestLogs.list({ metadata: { run } }, { limit: 1000 })).records;
    expect(read.length).toBe(30);
    for (const record of finished) expect(read.find((r) => r.traceId === record.traceId)).toEqual(JSON.parse(JSON.stringify(record)));
  });

  it('records that finish while a refused flush runs are kept too, and the bound drops the oldest of all', async () => {
    const store = new Interrupted(ctx.store.requestLogs);
    // About two records a batch: the refused flush spans several batches.
    const log = new RequestLog(store, recorder(), { queueMax: 6, batchSize: 1000, batchBytes: 1200, flushMs: 60_000 });
    const finished = records(6);
    const during = records(3).map((r) => ({ ...r, metadata: finished[0]!.metadata }));
    store.down = true;
    for (const record of finished) log.write(record);
    await log.flush();
    expect({ queued: log.queued, dropped: log.dropped }).toEqual({ queued: 6, dropped: 0 });
    store.onInsert = () => {
      store.onInsert = null;
      for (const record of during) log.write(record);
    };
    await log.flush();
    expect({ queued: log.queued, dropped: log.dropped, written: log.written }).toEqual({ queued: 6, dropped: 3, written: 0 });
    store.down = false;
    await log.close();
    const expected = [...finished.slice(3), ...during].map((r) => r.traceId).sort();
    expect((await stored(finished)).map((r) => r.traceId).sort()).toEqual(expected);
  });

  it('a record the store refuses on its own values is dropped, counted and logged; the records batched with it are written, and the next flush is not held back', async () => {
    const logger = recorder();
    const log = new RequestLog(ctx.store.requestLogs, logger, { batchSize: 1000, flushMs: 60_000 });
    const finished = records(6);
    // A value no store keeps (U+0000 in a text column the writer does not clean): refused on both backends alike.
    finished[2] = { ...finished[2]!, apiKeyId: 'key\u0000id' };
    for (const record of finished) log.write(record);
    await log.flush();
    expect({ written: log.written, dropped: log.dropped, queued: log.queued }).toEqual({ written: 5, dropped: 1, queued: 0 });
    expect(logger.events).toContain('request_log_records_refused');
    expect((await stored(finished)).map((r) => r.traceId).sort()).toEqual(finished.filter((_, i) => i !== 2).map((r) => r.traceId).sort());
    const later = records(2);
    for (const record of later) log.write(record);
    await log.flush();
    expect((await stored(later)).length).toBe(2);
  });

  it('a model name with U+0000 (a client\'s) is kept with U+FFFD in its place, and a filter with U+0000 finds it', async () => {
    const log = new RequestLog(ctx.store.requestLogs, recorder(), { batchSize: 1000, flushMs: 60_000 });
    const finished = records(2);
    finished[0] = { ...finished[0]!, modelRequested: 'gpt\u0000x', modelAnswered: 'gpt\u0000x', provider: 'vendor\u0000' };
    for (const record of finished) log.write(record);
    await log.flush();
    expect({ written: log.written, dropped: log.dropped }).toEqual({ written: 2, dropped: 0 });
    const found = await ctx.store.requestLogs.list({ model: 'gpt\u0000x', metadata: finished[0]!.metadata }, { limit: 10 });
    expect(found.records.map((r) => [r.traceId, r.modelRequested, r.provider])).toEqual([[finished[0]!.traceId, 'gpt\uFFFDx', 'vendor\uFFFD']]);
  });

  it('metadata with U+0000 (x-gateway-metadata may escape it) is kept with U+FFFD, and metadata filters still work over its row', async () => {
    const log = new RequestLog(ctx.store.requestLogs, recorder(), { batchSize: 1000, flushMs: 60_000 });
    const finished = records(2);
    const run = finished[0]!.metadata.run!;
    finished[0] = { ...finished[0]!, metadata: { run, team: 'a\u0000b', ['__proto__']: 'p\u0000', half: '\udc00x' } };
    for (const record of finished) log.write(record);
    await log.flush();
    expect(log.written).toBe(2);
    const all = await ctx.store.requestLogs.list({ metadata: { run } }, { limit: 10 });
    expect(all.records).toHaveLength(2);
    const found = await ctx.store.requestLogs.list({ metadata: { run, team: 'a\u0000b' } }, { limit: 10 });
    expect(found.records.map((r) => r.traceId)).toEqual([finished[0]!.traceId]);
    expect(Object.entries(found.records[0]!.metadata).sort()).toEqual([['__proto__', 'p\uFFFD'], ['half', '\uFFFDx'], ['run', run], ['team', 'a\uFFFDb']]);
    if (backend !== 'postgres') return;
    // A row an earlier version wrote with the escape itself, which jsonb refuses: the filters read past it, and match it as U+FFFD.
    const [legacy, lone] = records(2) as [RequestRecord, RequestRecord];
    const client = new pg.Client({ connectionString: ctx.location.databaseUrl! });
    await client.connect();
    try {
      const insert = 'INSERT INTO request_logs (id, trace_id, created_ms, status, metadata, record) VALUES ($1, $2, $3, 200, $4, $5)';
      await client.query(insert, [legacy.id, legacy.traceId, legacy.createdAt, JSON.stringify({ run, team: 'old\u0000' }), '{"method":"POST"}']);
      // A lone surrogate half, which JSON.stringify escapes and jsonb refuses too.
      await client.query(insert, [lone.id, lone.traceId, lone.createdAt, JSON.stringify({ run, team: 'half\ud800' }), '{"method":"POST"}']);
    } finally {
      await client.end();
    }
    expect((await ctx.store.requestLogs.list({ metadata: { run } }, { limit: 10 })).records).toHaveLength(4);
    expect((await ctx.store.requestLogs.list({ metadata: { run, team: 'old\u0000' } }, { limit: 10 })).records.map((r) => r.traceId)).toEqual([legacy.traceId]);
    expect((await ctx.store.requestLogs.list({ metadata: { run, team: 'half\ud800' } }, { limit: 10 })).records.map((r) => r.traceId)).toEqual([lone.traceId]);
  });

  it('close writes what is queued, and drops (and counts) what comes after', async () => {
    const log = new RequestLog(ctx.store.requestLogs, recorder(), { batchSize: 1000, flushMs: 60_000 });
    log.start();
    const finished = records(25);
    for (const record of finished) log.write(record);
    await log.close();
    expect(log.written).toBe(25);
    log.write(records(1)[0]!);
    expect(log.dropped).toBe(1);
    expect((await stored(finished)).length).toBe(25);
  });

  it('close spills what the store still refuses to a file, which the next start writes once and deletes', async () => {
    const dataDir = folder();
    const store = new Interrupted(ctx.store.requestLogs);
    const logger = recorder();
    let backs = 0;
    const log = new RequestLog(store, logger, { batchSize: 1000, flushMs: 60_000 }, Date.now, { keep: (texts) => keepPending(dataDir, 'request-log', texts), storeIsBack: () => void backs++ });
    const finished = records(30);
    store.down = true;
    for (const record of finished) log.write(record);
    await log.close();
    expect(logger.events).toEqual(['request_log_write_failed', 'request_log_spilled']);
    expect(backs).toBe(0);
    expect(log.dropped).toBe(0);
    const files = readdirSync(dataDir);
    expect(files).toEqual([expect.stringMatching(/^request-log-pending-.*\.jsonl$/)]);
    expect(statSync(join(dataDir, files[0]!)).mode & 0o777).toBe(0o600);

    // The next start, its store still away: the file stays.
    const restarting = recorder();
    const restore = () => takePending(dataDir, 'request-log', (lines) => insertAll(store, lines), restarting);
    expect(await restore()).toBe(0);
    expect(restarting.events).toEqual(['pending_writes_failed']);
    expect(readdirSync(dataDir)).toEqual(files);
    // Back: written once, even when two restores run at once (one takes the file).
    store.down = false;
    const [first, second] = await Promise.all([restore(), restore()]);
    expect(first + second).toBe(30);
    expect(readdirSync(dataDir)).toEqual([]);
    const back = await stored(finished);
    expect(back.map((r) => r.traceId).sort()).toEqual(finished.map((r) => r.traceId).sort());
  });

  it('a full batch is written without waiting for the timer', async () => {
    const log = new RequestLog(ctx.store.requestLogs, recorder(), { batchSize: 10, flushMs: 60_000 });
    log.start();
    const finished = records(10);
    for (const record of finished) log.write(record);
    await expect.poll(() => log.written, { timeout: 5000 }).toBe(10);
    await log.close();
  });
});
