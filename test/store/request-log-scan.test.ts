// A filtered page of the request log reads a bounded number of rows (sql-request-log-store.ts
// LogScan), in chunks with the event loop let in between, and ends early with `next` where it
// stopped; paging on from `next` finds every match once, newest first. Run on both backends with
// small bounds, so a few hundred rows stand for millions.
import { randomUUID } from 'node:crypto';
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordBatch } from '../../runtime/core/record-batch.ts';
import { newRecordId, newRequestRecord, type RequestRecord } from '../../runtime/core/request-record.ts';
import type { SqlDatabase } from '../../runtime/store/sql/sql-database.ts';
import { SqlRequestLogStore } from '../../runtime/store/sql/sql-request-log-store.ts';
import type { RequestLogFilter } from '../../runtime/store/request-log-store.ts';
import { BACKENDS, createLocation, openRawDatabase, type StoreLocation } from './backends.ts';

const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);

describe.each(BACKENDS)('request log scan on %s', (backend) => {
  let location: StoreLocation;
  let db: SqlDatabase;
  beforeAll(async () => {
    location = await createLocation(backend);
    db = await openRawDatabase(location);
  });
  afterAll(async () => {
    await db?.close();
    await location?.remove();
  });

  /** `count` records one millisecond apart, oldest first, in their own run; `team(i)` is record i's team. */
  async function fill(count: number, team: (i: number) => string): Promise<{ run: string; records: RequestRecord[] }> {
    const run = randomUUID();
    const start = Date.now() - 3_600_000;
    const records = Array.from({ length: count }, (_, i) => {
      const at = start + i;
      return { ...newRequestRecord(`${run}-${i}`, 'POST', '/v1/chat/completions', 'http', at), id: newRecordId(at), status: 200, metadata: { run, team: team(i) } };
    });
    await new SqlRequestLogStore(db).insert(RecordBatch.of(records.map((r) => JSON.stringify(r))));
    return { run, records };
  }

  /** Every page from the first until has_more is false: its records, and how many pages it took. */
  async function pageThrough(store: SqlRequestLogStore, filter: RequestLogFilter, limit: number): Promise<{ ids: string[]; pages: number; sizes: number[] }> {
    const ids: string[] = [];
    const sizes: number[] = [];
    let after: string | undefined;
    for (let pages = 1; ; pages++) {
      const page = await store.list(filter, { after, limit });
      ids.push(...page.records.map((r) => r.id));
      sizes.push(page.records.length);
      if (!page.hasMore) {
        expect(page.next).toBeNull();
        return { ids, pages, sizes };
      }
      expect(page.next).not.toBeNull();
      after = page.next!;
      if (pages > 10_000) throw new Error('paging did not end');
    }
  }

  it('stops a page at its bound with fewer records, says where, and goes on from there', async () => {
    const { run, records } = await fill(100, (i) => (i === 5 || i === 90 ? 'rare' : 'common'));
    const store = new SqlRequestLogStore(db, { chunkRows: 8, maxRows: 32 });
    const first = await store.list({ metadata: { run, team: 'rare' } }, { limit: 10 });
    // The newest 32 rows hold record 90 only: a page of one, more to look at from the 32nd row on.
    expect(first.records.map((r) => r.id)).toEqual([records[90]!.id]);
    expect(first).toMatchObject({ hasMore: true, next: records[100 - 32]!.id });
    const second = await store.list({ metadata: { run, team: 'rare' } }, { limit: 10, after: first.next! });
    expect(second).toMatchObject({ records: [], hasMore: true, next: records[100 - 64]!.id });
    const all = await pageThrough(store, { metadata: { run, team: 'rare' } }, 10);
    expect(all.ids).toEqual([records[90]!.id, records[5]!.id]);
    // A filter most rows match fills its page from the first chunk; no bound is reached.
    const common = await store.list({ metadata: { run, team: 'common' } }, { limit: 10 });
    expect(common.records.map((r) => r.id)).toEqual(records.filter((_, i) => i !== 90 && i !== 5).reverse().slice(0, 10).map((r) => r.id));
    expect(common).toMatchObject({ hasMore: true, next: common.records[9]!.id });
  });

  it('lets the event loop in between the chunks of a page', async () => {
    const { run } = await fill(200, () => 'common');
    const store = new SqlRequestLogStore(db, { chunkRows: 10, maxRows: 1_000 });
    let turns = 0;
    const tick = (): void => {
      turns++;
      if (turns < 1_000) setImmediate(tick);
    };
    setImmediate(tick);
    const page = await store.list({ metadata: { run, team: 'none' } }, { limit: 10 });
    const during = turns;
    turns = 1_000;
    expect(page).toMatchObject({ records: [], hasMore: false, next: null });
    // The table's 200+ rows in chunks of 10: the loop ran between them (SQLite reads are synchronous,
    // so on it only the yields between chunks let it run; a single read would leave it at 0).
    expect(during).toBeGreaterThanOrEqual(10);
  });

  it('property: paging on from `next` finds every match once, newest first, each page within its limit', async () => {
    const shape = fc.record({
      count: fc.integer({ min: 0, max: 120 }),
      matches: fc.array(fc.nat(), { maxLength: 30 }),
      chunkRows: fc.integer({ min: 1, max: 40 }),
      maxRows: fc.integer({ min: 1, max: 80 }),
      limit: fc.integer({ min: 1, max: 12 }),
      window: fc.option(fc.tuple(fc.nat(120), fc.nat(120)), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(shape, async ({ count, matches, chunkRows, maxRows, limit, window }) => {
        const hits = new Set(matches.map((m) => (count === 0 ? -1 : m % count)));
        const { run, records } = await fill(count, (i) => (hits.has(i) ? 'hit' : 'miss'));
        const store = new SqlRequestLogStore(db, { chunkRows, maxRows });
        const filter: RequestLogFilter = { metadata: { run, team: 'hit' } };
        let expected = records.filter((_, i) => hits.has(i));
        if (window !== undefined && count > 0) {
          const [a, b] = window.map((w) => records[0]!.createdAt + (w % count));
          filter.fromMs = Math.min(a!, b!);
          filter.toMs = Math.max(a!, b!);
          expected = expected.filter((r) => r.createdAt >= filter.fromMs! && r.createdAt <= filter.toMs!);
        }
        const { ids, sizes } = await pageThrough(store, filter, limit);
        expect(ids).toEqual(expected.reverse().map((r) => r.id));
        expect(sizes.every((n) => n <= limit)).toBe(true);
      }),
      { numRuns: backend === 'postgres' ? 25 : 60, seed: SEED, verbose: 1 },
    );
  });
});
