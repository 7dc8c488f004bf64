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

/** A UNIQUE or PRIMARY KEY constraint refused the write: the record already exists. */
export class UniqueViolationError extends Error {
  override readonly name = 'UniqueViolationError';
}

/** A CHECK constraint refused the write: the record would break one of its own rules. */
export class CheckViolationError extends Error {
  override readonly name = 'CheckViolationError';
}

/**
 * The database could not be reached or would not take the statement because of its own state: down,
 * restarting, refusing connections, the connection lost, or (SQLite) locked by another process past
 * the busy timeout. Not the request's fault; the same call may work shortly (the API answers 503).
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}
