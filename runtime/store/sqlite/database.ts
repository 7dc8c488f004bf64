// Opens the embedded store: one SQLite file under the data directory, WAL so readers never wait for a
// writer, and a busy timeout so processes sharing the file (servers, `gateway keys`) wait for each
// other's short write transactions instead of failing.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { migrate, readMigrations } from './migrate.ts';

export const SQLITE_FILE_NAME = 'gateway.sqlite';
export const SQLITE_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/sqlite/', import.meta.url));
const BUSY_TIMEOUT_MS = 5000;

export function openSqliteDatabase(dataDir: string): DatabaseSync {
  mkdirSync(dataDir, { recursive: true });
  const db = new DatabaseSync(join(dataDir, SQLITE_FILE_NAME), { timeout: BUSY_TIMEOUT_MS });
  try {
    db.exec('PRAGMA journal_mode = WAL');
    // NORMAL is durable across application crashes in WAL mode; only an OS crash can lose the last commit.
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    migrate(db, readMigrations(SQLITE_MIGRATIONS_DIR));
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}
