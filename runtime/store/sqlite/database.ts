// Opens the embedded store: one SQLite file under the data directory, WAL so readers never wait for a
// writer, and a busy timeout so processes sharing the file (servers, `gateway keys`) wait for each
// other's short write transactions instead of failing.
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { backendMigrations } from '../migration-files.ts';
import { migrate } from './migrate.ts';

export const SQLITE_FILE_NAME = 'gateway.sqlite';
const BUSY_TIMEOUT_MS = 5000;
/**
 * Bytes per page of a new file (an existing one keeps its own). The request log dominates the file:
 * at 4 KB a record of ~2 KB (one with hook_results, or with bodies) fills a page on its own and the
 * writer writes twice the pages it needs. Measured at a million stored rows with
 * `node bench/log-insert-bench.ts [--hooks] [--trace random] --page-size N` (docs/decisions.md).
 */
export const SQLITE_PAGE_SIZE = 8192;

export function openSqliteDatabase(dataDir: string): DatabaseSync {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, SQLITE_FILE_NAME);
  // Loaded when a store opens, not when this module is imported, and after its warning is silenced:
  // in the one-file build every import is hoisted to the top of the file.
  silenceSqliteWarning();
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
  const db = new DatabaseSync(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    // Takes effect only while the file is empty; must come before WAL, which fixes the page size.
    db.exec(`PRAGMA page_size = ${SQLITE_PAGE_SIZE}`);
    withBusyRetry(() => db.exec('PRAGMA journal_mode = WAL'));
    // NORMAL is durable across application crashes in WAL mode; only an OS crash can lose the last commit.
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    // In memory: every multi-row INSERT of the request log in a transaction keeps a statement journal,
    // which SQLite otherwise spills to a new file in /var/tmp past 64 KiB (an open, an unlink and a
    // dozen page writes per INSERT), and which a container with a read-only root may not have. No
    // query here sorts or groups more than a page of rows without an index (docs/decisions.md).
    db.exec('PRAGMA temp_store = MEMORY');
    migrate(db, backendMigrations('sqlite'));
    ownerOnly(file);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/**
 * Switching a new file to WAL needs a lock that SQLite does not wait for through the busy timeout:
 * two processes opening a fresh file at the same moment would make one fail with "database is
 * locked". Retry that step, as the busy timeout would, for up to BUSY_TIMEOUT_MS.
 */
function withBusyRetry(step: () => void): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      step();
      return;
    } catch (error) {
      if (!/database is locked|SQLITE_BUSY/i.test((error as Error).message) || Date.now() > deadline) throw error;
      Atomics.wait(pause, 0, 0, 20);
    }
  }
}

/**
 * The store holds key hashes, sealed credentials and request records: readable by the gateway's user
 * only, like the master key (mode 0600), whatever the umask. The WAL and shared-memory files exist
 * once the migrations wrote.
 */
function ownerOnly(file: string): void {
  for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o600);
}

let warningSilenced = false;

/**
 * node:sqlite is still flagged experimental on Node 24 and warns once per thread that loads it: in
 * every command's output, and from the request log's writer thread in every `serve` with a second
 * CPU. Each thread opens its connection here, so each silences it here, that warning only.
 */
function silenceSqliteWarning(): void {
  if (warningSilenced) return;
  warningSilenced = true;
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning: string | Error, ...rest: unknown[]): void {
    const text = typeof warning === 'string' ? warning : warning?.message;
    if (typeof text === 'string' && text.startsWith('SQLite is an experimental feature')) return;
    return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
}
