// SqlDatabase on PostgreSQL through a pg Pool. Statements are written with `?` placeholders (the
// dialect both backends share) and numbered here; a transaction keeps one pooled client for its span.
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { CheckViolationError, DataRefusedError, refuseUnstorableText, type SqlDatabase, type SqlExecutor, type SqlValue, StoreUnavailableError, UniqueViolationError } from '../sql/sql-database.ts';

const UNIQUE_VIOLATION = '23505';
const CHECK_VIOLATION = '23514';
/**
 * Failures of the server or the connection rather than of the statement: SQLSTATE class 08
 * (connection exception), class 53 (insufficient resources: disk full, out of memory, too many
 * connections), 57P01-57P03 (shut down, crashed, not accepting yet), 25006 (a write refused by a
 * read-only database: a standby the address still leads to after a failover, or a managed service
 * that turned read-only as its disk filled; the connection is dropped like the others, so the next
 * one reaches whatever the address names by then); 57014 (cancelled: a server-side
 * `statement_timeout`, or an administrator), 55P03 (a `lock_timeout`), 40001 and 40P01 (a
 * serialization failure, a deadlock: the same statement may go through when tried again); the
 * network's own errors; and pg's own message when the socket closed under a query.
 */
const UNAVAILABLE_STATES = /^(08|53|57P0[1-3]$|25006$|57014$|55P03$|40001$|40P01$)/;
const READ_ONLY_TRANSACTION = '25006';
/** SQLSTATE classes 22 (data exception) and 23 (integrity constraint violation): the values, not the server. */
const DATA_REFUSED_STATES = /^2[23]/;
const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const DEFAULT_POOL_SIZE = 10;
/**
 * How long getting a connection may take (a new one, or a free one of a busy pool). The driver's
 * default is for ever: a database behind a firewall that drops packets, or one that accepts and never
 * answers, held every API call and the shutdown's last log flush until TCP gave up (minutes).
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
/**
 * How long a statement waits for the database's answer. A pooled connection to a database that stopped
 * answering (a network partition, a server stuck before it replies) otherwise holds its statement for
 * ever: TCP keepalive never fires on a connection with data in flight. Far above any statement the
 * gateway sends (a filtered `GET /v1/logs` page over millions of rows included); migrations, which may
 * rewrite a large table, run without it.
 */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/**
 * Both waits once the process is stopping (`stopping()`): its last writes (request records, budget
 * spends, batch leases) then fail within seconds against a database that does not answer, and what
 * they held is kept in files under --data, well inside an orchestrator's grace period (30 s by default
 * in Kubernetes, 10 s of which the drain may take).
 */
export const STOPPING_TIMEOUT_MS = 2000;

export interface PostgresOptions {
  connectionString: string;
  poolSize?: number;
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
}

interface Queryable {
  query(query: pg.QueryConfig): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

export class PostgresDatabase implements SqlDatabase {
  readonly dialect = 'postgres' as const;
  readonly #pool: pg.Pool;
  readonly #direct: SqlExecutor;
  #statementTimeoutMs: number;
  /** The statement timeout as it is when a statement starts (shorter once stopping). */
  readonly #timeout = (): number => this.#statementTimeoutMs;
  /** Every client the pool holds, so a close that the database does not answer can cut them. */
  readonly #clients = new Set<pg.PoolClient>();
  /** Clients a statement or transaction holds now, each with the number of its borrowing. */
  readonly #busy = new Map<pg.PoolClient, number>();
  /**
   * Clients that were open when the database last refused a write as read-only: each may lead to
   * the read-only server, or carry a session that began read-only, so each is dropped instead of used
   * (one that only read meanwhile would otherwise refuse the first write after the database recovered).
   */
  readonly #stale = new Set<pg.PoolClient>();
  #borrowings = 0;
  /** Called when the last client ended, while close waits for that. */
  #allEnded: (() => void) | null = null;

  constructor(options: PostgresOptions) {
    this.#statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
    this.#pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize ?? DEFAULT_POOL_SIZE,
      connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      // A connection whose peer vanished without a word is found out by TCP, not by the next query.
      keepAlive: true,
    });
    // An idle client that loses its connection emits 'error' on the pool; unhandled, that would end the process.
    this.#pool.on('error', () => undefined);
    this.#pool.on('connect', (client) => {
      this.#clients.add(client);
      // A connection lost while a caller holds the client between statements (cut at a stop, or the
      // server gone) is an 'error' event; unhandled it would end the process. The caller's next
      // statement fails with it (not queryable: the store is unavailable).
      client.on('error', () => undefined);
    });
    this.#pool.on('remove', (client) => {
      this.#clients.delete(client);
      this.#stale.delete(client);
      if (this.#clients.size === 0) this.#allEnded?.();
    });
    // A statement outside a transaction borrows a client as pool.query would, but a client the pool
    // cannot get (the server refuses or is gone) is told apart from a statement that failed.
    this.#direct = executor(this.#timeout, {
      query: (query) => this.#onceMoreAfterReadOnly(() => this.#queryOnce(query)),
    });
  }

  async #queryOnce(query: pg.QueryConfig): Promise<{ rows: unknown[]; rowCount: number | null }> {
    const client = await this.#borrow();
    let lost: Error | undefined;
    try {
      return await client.query(query);
    } catch (error) {
      if (translate(error) instanceof StoreUnavailableError) lost = error as Error;
      throw error;
    } finally {
      this.#giveBack(client, lost);
    }
  }

  /**
   * Runs `attempt`, and once more when the database refused it as read-only: every connection open
   * then is dropped (#stale), so the second try is on a new one. A refused write changed nothing, and
   * a database still read-only refuses the second try too (503); one that recovered takes it.
   */
  async #onceMoreAfterReadOnly<T>(attempt: () => Promise<T>): Promise<T> {
    try {
      return await attempt();
    } catch (error) {
      if (!isReadOnlyRefusal(error)) throw error;
      for (const client of this.#clients) this.#stale.add(client);
      return attempt();
    }
  }

  all<T extends object>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.#direct.all<T>(sql, params);
  }

  get<T extends object>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return this.#direct.get<T>(sql, params);
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<number> {
    return this.#direct.run(sql, params);
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#onceMoreAfterReadOnly(() => this.#transactionOnce(work));
  }

  async #transactionOnce<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await this.#borrow();
    const tx = executor(this.#timeout, client);
    let broken = false;
    try {
      await tx.run('BEGIN');
      const result = await work(tx);
      await tx.run('COMMIT');
      return result;
    } catch (error) {
      // A connection that stopped answering is dropped, not asked to roll back (that would wait again).
      if (error instanceof StoreUnavailableError) broken = true;
      else await tx.run('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      this.#giveBack(client, broken);
    }
  }

  /**
   * The process is stopping: from now on a connection and a statement each wait at most
   * STOPPING_TIMEOUT_MS, and a statement already waiting (under the serving timeout) gets as long
   * again before its connection is cut.
   */
  stopping(): void {
    this.#statementTimeoutMs = Math.min(this.#statementTimeoutMs, STOPPING_TIMEOUT_MS);
    this.#pool.options.connectionTimeoutMillis = Math.min(this.#pool.options.connectionTimeoutMillis || STOPPING_TIMEOUT_MS, STOPPING_TIMEOUT_MS);
    // Each borrowing, not each client: one given back and borrowed again meanwhile is not cut.
    const waiting = [...this.#busy];
    setTimeout(() => {
      for (const [client, borrowing] of waiting) if (this.#busy.get(client) === borrowing) cut(client);
    }, STOPPING_TIMEOUT_MS).unref();
  }

  async #borrow(): Promise<pg.PoolClient> {
    for (;;) {
      const client = await connected(this.#pool);
      if (this.#stale.delete(client)) {
        client.release(true);
        continue;
      }
      this.#busy.set(client, ++this.#borrowings);
      return client;
    }
  }

  #giveBack(client: pg.PoolClient, lost: Error | boolean | undefined): void {
    this.#busy.delete(client);
    client.release(lost || this.#stale.delete(client) || undefined);
  }

  /** Runs `work` with one client of the pool (migrations need a session for their advisory lock). */
  async withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    try {
      return await work(client);
    } finally {
      client.release();
    }
  }

  /**
   * Ends the pool's connections. The pool resolves once it asked each to end; a connection ends when
   * the database acknowledges its goodbye, and one the database does not answer stays half-closed
   * until TCP gives up (minutes, keeping the process alive): after STOPPING_TIMEOUT_MS it is cut.
   */
  async close(): Promise<void> {
    const allEnded = new Promise<void>((resolve) => (this.#allEnded = resolve));
    await this.#pool.end();
    if (this.#clients.size === 0) return;
    await Promise.race([allEnded, sleep(STOPPING_TIMEOUT_MS, undefined, { ref: false })]);
    for (const client of this.#clients) cut(client);
  }
}

/**
 * Drops a client's connection at once: its statement fails (the store is unavailable) and the pool
 * removes it. pg's client has no public way to do that without a goodbye the peer must acknowledge.
 */
function cut(client: pg.PoolClient): void {
  (client as unknown as { connection: { stream: Socket } }).connection.stream.destroy();
}

/** Statements on `target`, each waiting `timeoutMs()` at most for its answer. */
function executor(timeoutMs: () => number, target: Queryable): SqlExecutor {
  const query = async (sql: string, params: readonly SqlValue[] = []) => {
    refuseUnstorableText(params);
    try {
      // query_timeout is read from a query's config by pg's client, though its types leave it out.
      return await target.query({ text: numbered(sql), values: params as SqlValue[], query_timeout: timeoutMs() } as pg.QueryConfig);
    } catch (error) {
      throw translate(error);
    }
  };
  return {
    all: async <T extends object>(sql: string, params?: readonly SqlValue[]) => (await query(sql, params)).rows as T[],
    get: async <T extends object>(sql: string, params?: readonly SqlValue[]) => (await query(sql, params)).rows[0] as T | undefined,
    run: async (sql, params) => (await query(sql, params)).rowCount ?? 0,
  };
}

const numberedCache = new Map<string, string>();

/** `?` → `$1`, `$2`, …; the shared SQL never has a `?` inside a literal. */
export function numbered(sql: string): string {
  let text = numberedCache.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    // Statements are fixed text or built from a fixed set of columns; the bound is only a safety net.
    if (numberedCache.size >= 1000) numberedCache.clear();
    numberedCache.set(sql, text);
  }
  return text;
}

/** A client of the pool; failing to get one (whatever the server said) means the store is unavailable. */
async function connected(pool: pg.Pool): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw error instanceof StoreUnavailableError ? error : new StoreUnavailableError(`PostgreSQL: ${(error as Error).message}`, { cause: error });
  }
}

/** Whether `error` (the driver's, or translated with it as the cause) is a write a read-only database refused. */
function isReadOnlyRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code ?? ((error as { cause?: { code?: unknown } } | null)?.cause?.code);
  return code === READ_ONLY_TRANSACTION;
}

function translate(error: unknown): unknown {
  if (error instanceof StoreUnavailableError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === UNIQUE_VIOLATION) return new UniqueViolationError((error as Error).message, { cause: error });
  if (code === CHECK_VIOLATION) return new CheckViolationError((error as Error).message, { cause: error });
  const message = (error as Error).message ?? '';
  if (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || NETWORK_ERRORS.has(code))) return new StoreUnavailableError(`PostgreSQL: ${message}`, { cause: error });
  if (code === undefined && /^Connection terminated|not queryable/.test(message)) return new StoreUnavailableError(`PostgreSQL: ${message}`, { cause: error });
  // pg's query_timeout: the connection is dropped when released (lost), so no late answer is read as another's.
  if (code === undefined && message === 'Query read timeout') return new StoreUnavailableError('PostgreSQL: no answer to a statement within its timeout', { cause: error });
  if (typeof code === 'string' && DATA_REFUSED_STATES.test(code)) return new DataRefusedError(`PostgreSQL: ${message}`, { cause: error });
  return error;
}
