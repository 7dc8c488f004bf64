// The one database surface every record store is written against, so each store is written once
// and runs on SQLite and on PostgreSQL. SQL uses `?` placeholders and the subset both dialects share
// (ON CONFLICT upserts, RETURNING, LIMIT/OFFSET, CAST(... AS INTEGER)); values are strings, numbers
// and null only, and timestamps travel as ISO 8601 text.

export type SqlValue = string | number | null;
export type SqlRow = Record<string, SqlValue>;

export interface SqlExecutor {
  all<T extends object = SqlRow>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T extends object = SqlRow>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** Runs a statement and returns the number of rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
}

export interface SqlDatabase extends SqlExecutor {
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * Runs `work` in one transaction that holds the write lock from its first statement on (SQLite:
   * BEGIN IMMEDIATE; PostgreSQL: row locks taken by the first UPDATE), committed when `work`
   * resolves and rolled back when it throws.
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * The process is stopping: a database that does not answer makes its last writes fail within
   * seconds (they are then kept in files), not wait as long as a serving process would.
   */
  stopping(): void;
  close(): Promise<void>;
}

/**
 * The database refused the values themselves, not for its own state: the same statement with the same
 * values fails every time (PostgreSQL's SQLSTATE classes 22 and 23, SQLite's constraint, too-big and
 * mismatch results). A writer of many records (the request log) drops such a record rather than
 * keeping it, and the others with it, for ever.
 */
export class DataRefusedError extends Error {
  override readonly name: string = 'DataRefusedError';
}

/** A UNIQUE or PRIMARY KEY constraint refused the write: the record already exists. */
export class UniqueViolationError extends DataRefusedError {
  override readonly name = 'UniqueViolationError';
}

/** A CHECK constraint refused the write: the record would break one of its own rules. */
export class CheckViolationError extends DataRefusedError {
  override readonly name = 'CheckViolationError';
}

/**
 * A text value holds U+0000 (NUL), which PostgreSQL's text type cannot store. Both backends refuse it
 * before running the statement, so a request answers alike on either (400 `unstorable_text`); text
 * the gateway writes of its own accord (the request log's columns) is made storable first.
 */
export class UnstorableTextError extends DataRefusedError {
  override readonly name = 'UnstorableTextError';
}

/** Throws UnstorableTextError when a string parameter holds U+0000. */
export function refuseUnstorableText(params: readonly SqlValue[]): void {
  for (const value of params) {
    if (typeof value === 'string' && value.includes('\u0000')) throw new UnstorableTextError('a statement parameter holds U+0000, which PostgreSQL text cannot store');
  }
}

/**
 * The database could not be reached or would not take the statement because of its own state: down,
 * restarting, refusing connections, the connection lost, or (SQLite) locked by another process past
 * the busy timeout. Not the request's fault; the same call may work shortly (the API answers 503).
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}
