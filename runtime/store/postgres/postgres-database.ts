// SqlDatabase on PostgreSQL through a pg Pool. Statements are written with `?` placeholders (the
// dialect both backends share) and numbered here; a transaction keeps one pooled client for its span.
import pg from 'pg';
import { CheckViolationError, type SqlDatabase, type SqlExecutor, type SqlValue, StoreUnavailableError, UniqueViolationError } from '../sql/sql-database.ts';

const UNIQUE_VIOLATION = '23505';
const CHECK_VIOLATION = '23514';
/**
 * Failures of the server or the connection rather than of the statement: SQLSTATE class 08
 * (connection exception), class 53 (insufficient resources: disk full, out of memory, too many
 * connections), 57P01-57P03 (shut down, crashed, not accepting yet); the network's own errors; and
 * pg's own message when the socket closed under a query.
 */
const UNAVAILABLE_STATES = /^(08|53|57P0[1-3]$)/;
const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const DEFAULT_POOL_SIZE = 10;
/**
 * How long getting a connection may take (a new one, or a free one of a busy pool). The driver's
 * default is for ever: a database behind a firewall that drops packets, or one that accepts and never
 * answers, held every API call and the shutdown's last log flush until TCP gave up (minutes).
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;

export interface PostgresOptions {
  connectionString: string;
  poolSize?: number;
  connectTimeoutMs?: number;
}

interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

export class PostgresDatabase implements SqlDatabase {
  readonly dialect = 'postgres' as const;
  readonly #pool: pg.Pool;
  readonly #direct: SqlExecutor;

  constructor(options: PostgresOptions) {
    this.#pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize ?? DEFAULT_POOL_SIZE,
      connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      // A connection whose peer vanished without a word is found out by TCP, not by the next query.
      keepAlive: true,
    });
    // An idle client that loses its connection emits 'error' on the pool; unhandled, that would end the process.
    this.#pool.on('error', () => undefined);
    // A statement outside a transaction borrows a client as pool.query would, but a client the pool
    // cannot get (the server refuses or is gone) is told apart from a statement that failed.
    const pool = this.#pool;
    this.#direct = executor({
      async query(text, values) {
        const client = await connected(pool);
        let lost: Error | undefined;
        try {
          return await client.query(text, values);
        } catch (error) {
          if (translate(error) instanceof StoreUnavailableError) lost = error as Error;
          throw error;
        } finally {
          client.release(lost);
        }
      },
    });
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

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await connected(this.#pool);
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await work(executor(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw translate(error);
    } finally {
      client.release(broken);
    }
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

  async close(): Promise<void> {
    await this.#pool.end();
  }
}

function executor(target: Queryable): SqlExecutor {
  const query = async (sql: string, params: readonly SqlValue[] = []) => {
    try {
      return await target.query(numbered(sql), params as SqlValue[]);
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

function translate(error: unknown): unknown {
  if (error instanceof StoreUnavailableError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === UNIQUE_VIOLATION) return new UniqueViolationError((error as Error).message, { cause: error });
  if (code === CHECK_VIOLATION) return new CheckViolationError((error as Error).message, { cause: error });
  const message = (error as Error).message ?? '';
  if (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || NETWORK_ERRORS.has(code))) return new StoreUnavailableError(`PostgreSQL: ${message}`, { cause: error });
  if (code === undefined && /^Connection terminated|not queryable/.test(message)) return new StoreUnavailableError(`PostgreSQL: ${message}`, { cause: error });
  return error;
}
