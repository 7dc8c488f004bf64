// PostgreSQL that turned read-only (a standby the address still leads to after a failover, or a
// managed database whose disk filled) and then writable again: while read-only a write is refused as
// the store being unavailable (the API's 503), and once writable the first write goes through, even on
// a pooled connection whose session began read-only and has only read since (it used to refuse that
// write: a 503 after the database had recovered, once per such connection in the pool).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PostgresDatabase } from '../../runtime/store/postgres/postgres-database.ts';
import { StoreUnavailableError } from '../../runtime/store/sql/sql-database.ts';
import { adminSql, TEST_DATABASE_URL } from './backends.ts';

const database = `gw_read_only_${randomBytes(5).toString('hex')}`;
const databaseUrl = Object.assign(new URL(TEST_DATABASE_URL), { pathname: `/${database}` }).toString();
let db: PostgresDatabase;

/** Every session of the database from now on starts read-only; the sessions open now are ended. */
async function readOnly(on: boolean): Promise<void> {
  await adminSql(on ? `ALTER DATABASE ${database} SET default_transaction_read_only = on` : `ALTER DATABASE ${database} RESET default_transaction_read_only`);
  if (on) await adminSql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`);
}

beforeAll(async () => {
  await adminSql(`CREATE DATABASE ${database}`);
  db = new PostgresDatabase({ connectionString: databaseUrl, poolSize: 4 });
  await db.run('CREATE TABLE notes (id TEXT PRIMARY KEY)');
});
afterAll(async () => {
  await db?.close();
  await adminSql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
});

it.each(['a statement', 'a transaction'] as const)('refuses %s while read-only, and takes the first one after on a connection that began read-only', async (kind) => {
  const write = (id: string) =>
    kind === 'a statement' ? db.run('INSERT INTO notes (id) VALUES (?)', [id]) : db.transaction(async (tx) => tx.run('INSERT INTO notes (id) VALUES (?)', [id]));
  await readOnly(true);
  try {
    // The pool's connections were ended with their sessions: the first statement finds that out.
    await db.get('SELECT 1 AS one').catch(() => undefined);
    const refused = await write(`${kind}-during`).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    // Read after the refusal: a session that begins read-only, kept in the pool (reads never fail).
    const reads = await Promise.all([db.get<{ one: number }>('SELECT 1 AS one'), db.get<{ one: number }>('SELECT 1 AS one')]);
    expect(reads).toEqual([{ one: 1 }, { one: 1 }]);
  } finally {
    await readOnly(false);
  }
  // The pool hands out the connections the reads used (the most recently given back first).
  await write(`${kind}-after`);
  expect(await db.get('SELECT id FROM notes WHERE id = ?', [`${kind}-after`])).toEqual({ id: `${kind}-after` });
  expect(await db.get('SELECT id FROM notes WHERE id = ?', [`${kind}-during`])).toBeUndefined();
});
