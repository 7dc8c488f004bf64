// Applies the SQLite migrations in order inside one IMMEDIATE transaction, so two processes opening
// the same file at once (two servers, or a server and `gateway keys`) cannot both apply a step.
import type { DatabaseSync } from 'node:sqlite';
import { assertNotNewer, type Migration, migrationLabel, readMigrations } from '../migration-files.ts';

export { type Migration, readMigrations };

/** Applies the pending migrations and returns their versions. */
export function migrate(db: DatabaseSync, migrations: readonly Migration[]): number[] {
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at TEXT NOT NULL
    )`);
    const rows = db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>;
    const applied = new Set(rows.map((row) => Number(row.version)));
    assertNotNewer(applied, migrations);
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    const done: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      try {
        db.exec(migration.sql);
      } catch (err) {
        throw new Error(`migration ${migrationLabel(migration)} failed: ${(err as Error).message}`);
      }
      record.run(migration.version, migration.name, new Date().toISOString());
      done.push(migration.version);
    }
    db.exec('COMMIT');
    return done;
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  }
}
