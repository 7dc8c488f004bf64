// Opens the PostgreSQL store named by DATABASE_URL: a pool, then the migrations under an advisory lock.
// The schema is the connection's search_path (set it with `?options=-c search_path=…` in the URL).
import { backendMigrations } from '../migration-files.ts';
import { migratePostgres } from './migrate.ts';
import { PostgresDatabase, type PostgresOptions } from './postgres-database.ts';

export async function openPostgresDatabase(options: PostgresOptions): Promise<PostgresDatabase> {
  // The driver reads other text as a host name and fails on a name lookup that says nothing of the
  // URL. The value is not echoed: it may hold a password.
  if (!/^postgres(ql)?:\/\//i.test(options.connectionString)) {
    throw new Error('cannot open the PostgreSQL store: DATABASE_URL must be a postgres:// or postgresql:// URL (postgres://user:password@host:port/database).');
  }
  const db = new PostgresDatabase(options);
  try {
    await db.withClient((client) => migratePostgres(client, backendMigrations('postgres')));
  } catch (err) {
    await db.close();
    throw new Error(`cannot open the PostgreSQL store: ${describeConnectionError(err)}`, { cause: err });
  }
  return db;
}

/** The driver's message without the connection string, which may carry a password. */
function describeConnectionError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/postgres(ql)?:\/\/[^\s@]*@/gi, 'postgres://***@');
}
