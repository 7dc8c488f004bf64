// Applies the PostgreSQL migrations in one transaction under an advisory lock (keyed by the current
// schema), so gateway processes starting together against one database apply each step once.
import type pg from 'pg';
import { assertNotNewer, type Migration, migrationLabel } from '../migration-files.ts';

export async function migratePostgres(client: pg.PoolClient, migrations: readonly Migration[]): Promise<number[]> {
  await client.query('BEGIN');
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('gateway-migrations:' || current_schema()))");
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at TEXT NOT NULL
    )`);
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((row) => Number(row.version)));
    assertNotNewer(applied, migrations);
    const done: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      try {
        await client.query(migration.sql);
      } catch (err) {
        throw new Error(`migration ${migrationLabel(migration)} failed: ${(err as Error).message}`);
      }
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, new Date().toISOString()]);
      done.push(migration.version);
    }
    await client.query('COMMIT');
    return done;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
