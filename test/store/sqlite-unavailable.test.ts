// A SQLite file another process holds locked past the busy timeout, one whose disk is full, or one
// that turned read-only, is a store that does not answer (StoreUnavailableError: the API's 503 store_unavailable), not a failed
// statement.
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tempDirs } from '../support/temp-dirs.ts';
import { StoreUnavailableError, UniqueViolationError } from '../../runtime/store/sql/sql-database.ts';
import { SqliteDatabase } from '../../runtime/store/sqlite/sqlite-database.ts';

const folder = tempDirs('gateway-unavailable');
const databaseFile = (): string => join(folder(), 'gateway.sqlite');

it('answers a write lock held elsewhere past the busy timeout with StoreUnavailableError', async () => {
  const file = databaseFile();
  // Another process's connection: its own handle on the file, holding the write lock.
  const other = new DatabaseSync(file);
  other.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (id TEXT PRIMARY KEY)');
  const db = new SqliteDatabase(new DatabaseSync(file, { timeout: 20 }), file);
  try {
    await db.run('INSERT INTO t (id) VALUES (?)', ['a']);
    await expect(db.run('INSERT INTO t (id) VALUES (?)', ['a'])).rejects.toBeInstanceOf(UniqueViolationError);
    other.exec('BEGIN IMMEDIATE');
    await expect(db.run('INSERT INTO t (id) VALUES (?)', ['b'])).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(db.transaction((tx) => tx.run('INSERT INTO t (id) VALUES (?)', ['c']))).rejects.toBeInstanceOf(StoreUnavailableError);
    // Reads go on under WAL.
    expect(await db.all('SELECT id FROM t')).toEqual([{ id: 'a' }]);
    other.exec('COMMIT');
    expect(await db.run('INSERT INTO t (id) VALUES (?)', ['b'])).toBe(1);
  } finally {
    await db.close();
    other.close();
  }
});

it('answers a file that takes no writes (read-only) with StoreUnavailableError, and writes again once it does', async () => {
  const file = databaseFile();
  const connection = new DatabaseSync(file);
  connection.exec('CREATE TABLE t (v TEXT)');
  const db = new SqliteDatabase(connection, file);
  try {
    // What SQLite answers for a file or folder that turned read-only: SQLITE_READONLY.
    connection.exec('PRAGMA query_only = 1');
    await expect(db.run('INSERT INTO t (v) VALUES (?)', ['x'])).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await db.all('SELECT v FROM t')).toEqual([]);
    connection.exec('PRAGMA query_only = 0');
    expect(await db.run('INSERT INTO t (v) VALUES (?)', ['x'])).toBe(1);
  } finally {
    await db.close();
  }
});

it('answers a full disk with StoreUnavailableError', async () => {
  const file = databaseFile();
  const connection = new DatabaseSync(file);
  connection.exec('CREATE TABLE t (v TEXT)');
  // The file may not grow past its current pages: the next page it needs is a full disk to SQLite.
  const pages = (connection.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
  connection.exec(`PRAGMA max_page_count = ${pages}`);
  const db = new SqliteDatabase(connection, file);
  try {
    await expect(db.run('INSERT INTO t (v) VALUES (?)', ['x'.repeat(100_000)])).rejects.toBeInstanceOf(StoreUnavailableError);
  } finally {
    await db.close();
  }
});
