// The two store backends every store test runs against: SQLite in a fresh temp directory, and
// PostgreSQL in a fresh random schema of the test database (dropped afterwards), so parallel test
// files and CI re-runs never see each other's rows. PostgreSQL is at 127.0.0.1:5432 on every
// machine that runs the tests (TEST_DATABASE_URL overrides the server URL).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type GatewayStore, openGatewayStore } from '../../runtime/store/open-store.ts';
import { openPostgresDatabase } from '../../runtime/store/postgres/open-postgres.ts';
import type { SqlDatabase } from '../../runtime/store/sql/sql-database.ts';
import { openSqliteDatabase, SQLITE_FILE_NAME } from '../../runtime/store/sqlite/database.ts';
import { SqliteDatabase } from '../../runtime/store/sqlite/sqlite-database.ts';
import type { LogWriterPlacement } from '../../runtime/store/sqlite/sqlite-request-log-store.ts';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A place for one test's records: a data directory, or a database URL pinned to its own schema. */
export interface StoreLocation {
  backend: 'sqlite' | 'postgres';
  dataDir: string;
  databaseUrl: string | null;
  open(): Promise<GatewayStore>;
  /** Drops the schema / removes the directory. */
  remove(): Promise<void>;
}

export type BackendName = 'sqlite' | 'postgres';
export const BACKENDS: BackendName[] = ['sqlite', 'postgres'];

/** SQLite only: where request-log inserts run (the store's default, auto, otherwise). */
export interface LocationOptions {
  logWriter?: LogWriterPlacement;
}

export async function createLocation(backend: BackendName, options: LocationOptions = {}): Promise<StoreLocation> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-store-'));
  if (backend === 'sqlite') {
    return {
      backend,
      dataDir,
      databaseUrl: null,
      open: () => openGatewayStore({ dataDir, logWriter: options.logWriter }),
      async remove() {
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const schema = `gw_test_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE SCHEMA ${schema}`));
  const databaseUrl = withSearchPath(TEST_DATABASE_URL, schema);
  return {
    backend,
    dataDir,
    databaseUrl,
    open: () => openGatewayStore({ databaseUrl }),
    async remove() {
      await admin((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The URL with `options=-c search_path=<schema>`, so every connection of the pool uses that schema.
 * Test sessions also skip waiting for the commit flush (synchronous_commit=off): durability against
 * a crash of the database server is not what these tests check, and it halves their time.
 */
export function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema} -c synchronous_commit=off`);
  return parsed.toString();
}

/** One statement on the test server's own database, outside any test's schema (CREATE / ALTER / DROP DATABASE, ending sessions). */
export async function adminSql(sql: string): Promise<void> {
  await admin((client) => client.query(sql));
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, options: '-c synchronous_commit=off' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * One store per suite (beforeAll/afterAll), for suites run with describe.each(BACKENDS). Creating a
 * PostgreSQL schema and migrating it costs ~250 ms, so tests share it and keep to their own records
 * (their own IDs and organisations) instead of expecting an empty store.
 */
export function storeForSuite(
  backend: BackendName,
  hooks: { beforeAll(fn: () => Promise<void>): void; afterAll(fn: () => Promise<void>): void },
  options: LocationOptions = {},
): { readonly store: GatewayStore; readonly location: StoreLocation; reopen(): Promise<GatewayStore> } {
  let location: StoreLocation;
  let store: GatewayStore;
  hooks.beforeAll(async () => {
    location = await createLocation(backend, options);
    store = await location.open();
  });
  hooks.afterAll(async () => {
    await store?.close();
    await location?.remove();
  });
  return {
    get store() {
      return store;
    },
    get location() {
      return location;
    },
    async reopen() {
      await store.close();
      store = await location.open();
      return store;
    },
  };
}

/** A bare SqlDatabase on the location (migrated), for tests below the record stores. */
export async function openRawDatabase(location: StoreLocation): Promise<SqlDatabase> {
  if (location.databaseUrl !== null) return openPostgresDatabase({ connectionString: location.databaseUrl });
  return new SqliteDatabase(openSqliteDatabase(location.dataDir), join(location.dataDir, SQLITE_FILE_NAME));
}

/** Every row of a table as the database holds it, read beside the store (to check what is stored). */
export async function dumpTable(location: StoreLocation, table: string): Promise<Array<Record<string, unknown>>> {
  if (!/^[a-z_]+$/.test(table)) throw new Error(`not a table name: ${table}`);
  if (location.databaseUrl === null) {
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(join(location.dataDir, SQLITE_FILE_NAME), { readOnly: true });
    try {
      return db.prepare(`SELECT * FROM ${table}`).all() as Array<Record<string, unknown>>;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location.databaseUrl });
  await client.connect();
  try {
    return (await client.query(`SELECT * FROM ${table}`)).rows;
  } finally {
    await client.end();
  }
}
