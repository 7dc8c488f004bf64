// SqlDatabase on node:sqlite. The driver is synchronous and has one connection, so every statement
// and every transaction takes a turn on one queue: an async transaction must never see another
// caller's statement land between its BEGIN and COMMIT. The queue is per database *file*, shared by
// every connection this process opens on it: a second connection's BEGIN IMMEDIATE would otherwise
// block the thread (busy timeout) while the first connection's transaction waits for that thread.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { CheckViolationError, DataRefusedError, refuseUnstorableText, type SqlDatabase, type SqlExecutor, type SqlValue, StoreUnavailableError, UniqueViolationError } from '../sql/sql-database.ts';

// SQLite extended result codes (https://sqlite.org/rescode.html).
const SQLITE_CONSTRAINT_CHECK = 275;
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;
const SQLITE_CONSTRAINT_UNIQUE = 2067;
/**
 * Primary codes of a file that cannot take the statement now: another connection (another process on
 * the file) held the lock past the busy timeout, the disk is full, the file or its folder turned
 * read-only (a volume remounted read-only after disk errors), or the disk failed a read or write.
 */
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_READONLY = 8;
const SQLITE_IOERR = 10;
const SQLITE_FULL = 13;
const UNAVAILABLE_CODES = new Set([SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL]);
/** Primary codes of values the file cannot take, whatever its state: too big, a constraint, a type mismatch. */
const SQLITE_TOOBIG = 18;
const SQLITE_CONSTRAINT = 19;
const SQLITE_MISMATCH = 20;
const DATA_REFUSED_CODES = new Set([SQLITE_TOOBIG, SQLITE_CONSTRAINT, SQLITE_MISMATCH]);

export class SqliteDatabase implements SqlDatabase {
  readonly dialect = 'sqlite' as const;
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  readonly #queue: FileQueue;
  readonly #direct: SqlExecutor;
  #closed = false;

  /** `file` identifies the database file (its resolved path) so connections to it share one queue. */
  constructor(db: DatabaseSync, file: string) {
    this.#db = db;
    this.#queue = fileQueue(file);
    this.#direct = {
      all: async (sql, params = []) => this.#call(() => this.#statement(sql).all(...checked(params))) as never,
      get: async (sql, params = []) => this.#call(() => this.#statement(sql).get(...checked(params))) as never,
      run: async (sql, params = []) => this.#call(() => Number(this.#statement(sql).run(...checked(params)).changes)),
    };
  }

  /** The underlying connection, for migrations and tests. */
  get connection(): DatabaseSync {
    return this.#db;
  }

  all<T extends object>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.#turn(() => this.#direct.all<T>(sql, params));
  }

  get<T extends object>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return this.#turn(() => this.#direct.get<T>(sql, params));
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<number> {
    return this.#turn(() => this.#direct.run(sql, params));
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#turn(async () => {
      // IMMEDIATE takes the write lock now, so a read-then-write inside `work` cannot race another process.
      this.#call(() => this.#db.exec('BEGIN IMMEDIATE'));
      try {
        const result = await work(this.#direct);
        this.#db.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  /** A local file: nothing to wait for that a stop would shorten (the busy timeout is short already). */
  stopping(): void {}

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#turn(async () => {
      if (this.#db.isOpen) this.#db.close();
    });
    this.#queue.users--;
    if (this.#queue.users === 0) queues.delete(this.#queue.file);
  }

  #turn<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#queue.tail.then(work, work);
    this.#queue.tail = result.catch(() => undefined);
    return result;
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #call<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw translate(error);
    }
  }
}

/** The parameters, once refuseUnstorableText passed them (SQLite could store U+0000; PostgreSQL cannot, and both answer alike). */
function checked(params: readonly SqlValue[]): SqlValue[] {
  refuseUnstorableText(params);
  return params as SqlValue[];
}

interface FileQueue {
  file: string;
  tail: Promise<unknown>;
  users: number;
}

const queues = new Map<string, FileQueue>();

function fileQueue(file: string): FileQueue {
  let queue = queues.get(file);
  if (queue === undefined) {
    queue = { file, tail: Promise.resolve(), users: 0 };
    queues.set(file, queue);
  }
  queue.users++;
  return queue;
}

function translate(error: unknown): unknown {
  const code = (error as { errcode?: unknown }).errcode;
  if (code === SQLITE_CONSTRAINT_UNIQUE || code === SQLITE_CONSTRAINT_PRIMARYKEY) return new UniqueViolationError((error as Error).message, { cause: error });
  if (code === SQLITE_CONSTRAINT_CHECK) return new CheckViolationError((error as Error).message, { cause: error });
  if (typeof code === 'number' && UNAVAILABLE_CODES.has(code & 0xff)) return new StoreUnavailableError(`SQLite: ${(error as Error).message}`, { cause: error });
  if (typeof code === 'number' && DATA_REFUSED_CODES.has(code & 0xff)) return new DataRefusedError(`SQLite: ${(error as Error).message}`, { cause: error });
  return error;
}
