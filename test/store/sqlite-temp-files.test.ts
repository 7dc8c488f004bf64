// The request log's inserts make no temporary files. Each multi-row INSERT inside a transaction
// keeps a statement journal (the pages it changed, to undo that one statement), which SQLite spills
// to a new, at once unlinked, file in its temporary directory past 64 KiB: an open, an unlink and a
// dozen 8 KB writes per INSERT of 128 rows (seen with strace under load). The store keeps
// temporary data in memory. Observed in a child process whose SQLite temporary directory (read once,
// when SQLite starts) is an empty folder watched for files appearing.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const temp = mkdtempSync(join(tmpdir(), 'gateway-sqlite-temp-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const module = (path: string) => JSON.stringify(new URL(`../../runtime/${path}`, import.meta.url).href);

// Rows with random trace ids, so every INSERT changes many existing pages of the trace id's index.
const SCRIPT = `
import { watch } from 'node:fs';
import { join } from 'node:path';
const { openSqliteDatabase, SQLITE_FILE_NAME } = await import(${module('store/sqlite/database.ts')});
const { SqliteDatabase } = await import(${module('store/sqlite/sqlite-database.ts')});
const { SqlRequestLogStore } = await import(${module('store/sql/sql-request-log-store.ts')});
const { RecordBatch } = await import(${module('core/record-batch.ts')});
const { newRecordId, newRequestRecord } = await import(${module('core/request-record.ts')});
let files = 0;
const watcher = watch(process.env.SQLITE_TMPDIR, () => files++);
const dir = process.env.DATA_DIR;
const db = new SqliteDatabase(openSqliteDatabase(dir), join(dir, SQLITE_FILE_NAME));
const store = new SqlRequestLogStore(db);
const batch = (n) => RecordBatch.of(Array.from({ length: n }, () => {
  const now = Date.now();
  return JSON.stringify({ ...newRequestRecord(crypto.randomUUID(), 'POST', '/v1/chat/completions', 'http', now), id: newRecordId(now), status: 200 });
}));
for (let i = 0; i < 20; i++) await store.insert(batch(500));
await new Promise((resolve) => setTimeout(resolve, 200));
watcher.close();
await db.close();
process.stdout.write(String(files));
`;

it('writing request-log batches creates no file in SQLite\'s temporary directory', async () => {
  const sqliteTemp = join(temp, 'sqlite-tmp');
  mkdirSync(sqliteTemp);
  const script = join(temp, 'insert.mjs');
  writeFileSync(script, SCRIPT);
  const { stdout } = await promisify(execFile)(process.execPath, [script], {
    env: { ...process.env, SQLITE_TMPDIR: sqliteTemp, DATA_DIR: join(temp, 'data') },
    timeout: 60_000,
  });
  expect(Number(stdout)).toBe(0);
}, 90_000);
