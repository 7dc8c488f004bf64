// The embedded store's file: a new one gets the gateway's page size (the request log's rows pack
// better in 8 KB pages) and WAL; one made earlier with another page size keeps it and still opens,
// migrates and takes request-log rows.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, expect, it } from 'vitest';
import { openSqliteDatabase, SQLITE_FILE_NAME, SQLITE_PAGE_SIZE } from '../../runtime/store/sqlite/database.ts';
import { SqliteDatabase } from '../../runtime/store/sqlite/sqlite-database.ts';
import { SqlRequestLogStore } from '../../runtime/store/sql/sql-request-log-store.ts';
import { RecordBatch } from '../../runtime/core/record-batch.ts';
import { newRecordId, newRequestRecord, newTraceId } from '../../runtime/core/request-record.ts';

const temp = mkdtempSync(join(tmpdir(), 'gateway-sqlite-file-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function pragma(db: DatabaseSync, name: string): unknown {
  return Object.values(db.prepare(`PRAGMA ${name}`).get() as Record<string, unknown>)[0];
}

it(`a new file has ${SQLITE_PAGE_SIZE}-byte pages and WAL`, () => {
  const db = openSqliteDatabase(join(temp, 'new'));
  try {
    expect(pragma(db, 'page_size')).toBe(SQLITE_PAGE_SIZE);
    expect(pragma(db, 'journal_mode')).toBe('wal');
  } finally {
    db.close();
  }
});

it('a file made with 4 KB pages keeps them, and its request log still takes and returns records', async () => {
  const dir = join(temp, 'old');
  // An earlier gateway's file: 4 KB pages, WAL, no tables yet.
  mkdirSync(dir, { recursive: true });
  const old = new DatabaseSync(join(dir, SQLITE_FILE_NAME));
  old.exec('PRAGMA page_size = 4096');
  old.exec('PRAGMA journal_mode = WAL');
  old.close();

  const db = new SqliteDatabase(openSqliteDatabase(dir), join(dir, SQLITE_FILE_NAME));
  try {
    expect(pragma(db.connection, 'page_size')).toBe(4096);
    const store = new SqlRequestLogStore(db);
    const now = Date.now();
    const record = { ...newRequestRecord(newTraceId(now), 'POST', '/v1/chat/completions', 'http', now), id: newRecordId(now), status: 200 };
    await store.insert(RecordBatch.of([JSON.stringify(record)]));
    expect((await store.get(record.id))?.traceId).toBe(record.traceId);
  } finally {
    await db.close();
  }
});
