// Where the SQLite request log's inserts run (runtime/store/sqlite/sqlite-request-log-store.ts): in a
// writer thread, or on the serving thread a slice of rows per transaction with a turn of the event
// loop between slices. The request-log conformance suite runs on both; these check what differs.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { RecordBatch } from '../../runtime/core/record-batch.ts';
import { newRequestRecord, type RequestRecord } from '../../runtime/core/request-record.ts';
import { SqlRequestLogStore } from '../../runtime/store/sql/sql-request-log-store.ts';
import { openSqliteDatabase, SQLITE_FILE_NAME } from '../../runtime/store/sqlite/database.ts';
import { SqliteDatabase } from '../../runtime/store/sqlite/sqlite-database.ts';
import { cpuBudget } from '../../runtime/store/sqlite/cpu-budget.ts';
import { type LogWriterPlacement, SqliteRequestLogStore } from '../../runtime/store/sqlite/sqlite-request-log-store.ts';

const temp = mkdtempSync(join(tmpdir(), 'gateway-log-placement-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function open(placement: LogWriterPlacement): { store: SqliteRequestLogStore; db: SqliteDatabase } {
  const dir = join(temp, randomUUID());
  const db = new SqliteDatabase(openSqliteDatabase(dir), join(dir, SQLITE_FILE_NAME));
  return { store: new SqliteRequestLogStore(dir, new SqlRequestLogStore(db), placement), db };
}

function records(n: number): RequestRecord[] {
  const organisationId = randomUUID();
  return Array.from({ length: n }, (_, i) => ({ ...newRequestRecord(`trace-${i}-${randomUUID()}`, 'POST', '/v1/chat/completions', 'http', 1_700_000_000_000 + i), organisationId, status: 200 }));
}

const batchOf = (rs: RequestRecord[]) => RecordBatch.of(rs.map((r) => JSON.stringify(r)));

async function countRows(db: SqliteDatabase): Promise<number> {
  return (await db.get<{ n: number }>('SELECT count(*) AS n FROM request_logs'))!.n;
}

it('main: a batch of 400 goes in as slices, the event loop turning between them, every record stored', async () => {
  const { store, db } = open('main');
  const batch = records(400);
  let turns = 0;
  const between: number[] = [];
  // Counts the turns of the loop while the insert runs, and how many rows were committed at each.
  const tick = (): void => {
    if (done) return;
    turns++;
    void countRows(db).then((n) => between.push(n));
    setImmediate(tick);
  };
  let done = false;
  setImmediate(tick);
  await store.insert(batchOf(batch));
  done = true;
  await new Promise((resolve) => setImmediate(resolve));
  expect(store.writesOnThisThread).toBe(true);
  expect(turns).toBeGreaterThanOrEqual(2);
  expect(between.some((n) => n > 0 && n < 400)).toBe(true);
  expect(await countRows(db)).toBe(400);
  for (const record of [batch[0]!, batch[127]!, batch[128]!, batch[399]!]) expect(await store.get(record.id)).toEqual(record);
  await store.close();
  await db.close();
});

it('main: close waits for a batch still being written', async () => {
  const { store, db } = open('main');
  const written = store.insert(batchOf(records(330)));
  await store.close();
  await written;
  expect(await countRows(db)).toBe(330);
  await db.close();
});

it('main: a batch written again (a flush retried after part of it was committed) stores each record once', async () => {
  const { store, db } = open('main');
  const batch = records(180);
  await store.insert(batchOf(batch.slice(0, 100)));
  await store.insert(batchOf(batch));
  expect(await countRows(db)).toBe(180);
  await store.close();
  await db.close();
});

it('thread: the batch goes to the writer thread, and the main connection reads it', async () => {
  const { store, db } = open('thread');
  const batch = records(120);
  await store.insert(batchOf(batch));
  expect(store.writesOnThisThread).toBe(false);
  expect(await store.get(batch[119]!.id)).toEqual(batch[119]);
  await store.close();
  await db.close();
});

it('auto: decided by the first batch, from the CPUs this process may use (affinity and CPU quota)', async () => {
  const { store, db } = open('auto');
  expect(store.writesOnThisThread).toBeNull();
  await store.insert(batchOf(records(3)));
  expect(store.writesOnThisThread).toBe(cpuBudget() < 2);
  await store.close();
  await db.close();
});
