// The request log's SQLite writer thread, for a process with a second CPU (sqlite-request-log-store.ts
// decides): node:sqlite is synchronous, and here a batch's inserts and SQLite's checkpoints, which
// wait for the disk, never hold up the event loop. The worker has its own connection to the same file
// (WAL lets the main thread read meanwhile) and answers each batch once it is committed.
import { flushCompileCache } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { join } from 'node:path';
import type { SharedRecords } from '../../core/record-batch.ts';
import { SqlRequestLogStore } from '../sql/sql-request-log-store.ts';
import { openSqliteDatabase, SQLITE_FILE_NAME } from './database.ts';
import { SqliteDatabase } from './sqlite-database.ts';
import { DataRefusedError, StoreUnavailableError } from '../sql/sql-database.ts';

export interface InsertMessage {
  id: number;
  /** The batch's records in the log writer's shared memory, read here without a copy. */
  records: SharedRecords;
}

/** `kind`: what the failure was (the errors' classes do not cross threads). */
export type InsertReply = { id: number; ok: true } | { id: number; ok: false; message: string; kind: 'unavailable' | 'data-refused' | 'other' };

// Its modules are loaded: into the compile cache now (when on), so a process that is killed later
// still leaves the next start's writer a cache to load from.
flushCompileCache();

const dataDir = (workerData as { dataDir: string }).dataDir;
const db = new SqliteDatabase(openSqliteDatabase(dataDir), join(dataDir, SQLITE_FILE_NAME));
const store = new SqlRequestLogStore(db);

parentPort!.on('message', (message: InsertMessage) => {
  store.insertShared(message.records).then(
    () => parentPort!.postMessage({ id: message.id, ok: true } satisfies InsertReply),
    (error: unknown) => parentPort!.postMessage({ id: message.id, ok: false, message: (error as Error).message, kind: error instanceof StoreUnavailableError ? 'unavailable' : error instanceof DataRefusedError ? 'data-refused' : 'other' } satisfies InsertReply),
  );
});
