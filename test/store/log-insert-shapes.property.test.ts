// The request log's INSERT shapes: node:sqlite keeps every statement it has prepared, and an INSERT of
// n rows holds ~1 KB per row, so a store that prepared one shape per remainder of a flush (1 to 199
// rows) grew the writer's memory by ~21 MB over a long run. Whatever the batch sizes, the store sends
// only INSERTs of a power of two rows up to ROWS_PER_INSERT (eight shapes), and every record lands.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, expect } from 'vitest';
import { RecordBatch } from '../../runtime/core/record-batch.ts';
import { newRequestRecord } from '../../runtime/core/request-record.ts';
import { LOG_COLUMNS } from '../../runtime/store/sql/log-row.ts';
import type { SqlDatabase, SqlExecutor } from '../../runtime/store/sql/sql-database.ts';
import { chunkRows, ROWS_PER_INSERT, SqlRequestLogStore } from '../../runtime/store/sql/sql-request-log-store.ts';
import { openSqliteDatabase, SQLITE_FILE_NAME } from '../../runtime/store/sqlite/database.ts';
import { SqliteDatabase } from '../../runtime/store/sqlite/sqlite-database.ts';

const dir = mkdtempSync(join(tmpdir(), 'gateway-log-shapes-'));
const db = new SqliteDatabase(openSqliteDatabase(dir), join(dir, SQLITE_FILE_NAME));
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The real database, noting the row count of every INSERT the store runs in a transaction. */
function recording(inner: SqlDatabase, rowsPerInsert: number[]): SqlDatabase {
  const note = (tx: SqlExecutor): SqlExecutor => ({
    all: (sql, params) => tx.all(sql, params),
    get: (sql, params) => tx.get(sql, params),
    run: (sql, params) => {
      if (sql.startsWith('INSERT INTO request_logs')) rowsPerInsert.push((params?.length ?? 0) / LOG_COLUMNS.length);
      return tx.run(sql, params);
    },
  });
  return { dialect: inner.dialect, all: inner.all.bind(inner), get: inner.get.bind(inner), run: inner.run.bind(inner), transaction: (work) => inner.transaction((tx) => work(note(tx))), stopping: () => inner.stopping(), close: () => inner.close() };
}

const texts = (n: number, organisationId: string) =>
  Array.from({ length: n }, (_, i) => JSON.stringify({ ...newRequestRecord(randomUUID(), 'POST', '/v1/chat/completions', 'http', 1_700_000_000_000 + i), organisationId, status: 200 }));

test.prop([fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 4 })], { numRuns: 25 })(
  'batches of any size go in as INSERTs of a power of two rows up to the chunk, every record stored',
  async (sizes) => {
    const rowsPerInsert: number[] = [];
    const store = new SqlRequestLogStore(recording(db, rowsPerInsert));
    const organisationId = randomUUID();
    for (const size of sizes) await store.insert(RecordBatch.of(texts(size, organisationId)));
    for (const rows of rowsPerInsert) {
      expect(Number.isInteger(Math.log2(rows)) && rows <= ROWS_PER_INSERT, `an INSERT of ${rows} rows`).toBe(true);
    }
    expect(rowsPerInsert.reduce((a, b) => a + b, 0)).toBe(sizes.reduce((a, b) => a + b, 0));
    const stored = await db.get<{ n: number }>('SELECT count(*) AS n FROM request_logs WHERE organisation_id = ?', [organisationId]);
    expect(stored!.n).toBe(sizes.reduce((a, b) => a + b, 0));
  },
);

test.prop([fc.integer({ min: 1, max: 10_000 })])('chunkRows takes a full chunk, else the largest power of two that fits', (remaining) => {
  const rows = chunkRows(remaining);
  expect(rows).toBeLessThanOrEqual(Math.min(remaining, ROWS_PER_INSERT));
  expect(rows === ROWS_PER_INSERT || rows * 2 > remaining).toBe(true);
  expect(Number.isInteger(Math.log2(rows))).toBe(true);
});
