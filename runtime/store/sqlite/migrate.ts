// Numbered SQL migrations (`NNN_name.sql`), applied in order inside one IMMEDIATE transaction so two
// processes opening the same file at once (server and `gateway keys`) cannot both apply a step.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const FILE_NAME = /^(\d{3})_([a-z0-9_]+)\.sql$/;

export function readMigrations(dir: string): Migration[] {
  const migrations: Migration[] = [];
  for (const file of readdirSync(dir).sort()) {
    const m = FILE_NAME.exec(file);
    if (m === null) {
      if (file.endsWith('.sql')) throw new Error(`migration ${file}: name must look like 001_create_things.sql`);
      continue;
    }
    const version = Number(m[1]);
    if (migrations.some((known) => known.version === version)) throw new Error(`migration ${file}: version ${m[1]} is used twice`);
    migrations.push({ version, name: m[2], sql: readFileSync(join(dir, file), 'utf8') });
  }
  return migrations;
}

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
    const newest = Math.max(0, ...migrations.map((m) => m.version));
    for (const version of applied) {
      if (version > newest) throw new Error(`the database was migrated to version ${version} by a newer gateway; this one knows up to ${newest}`);
    }
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    const done: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      try {
        db.exec(migration.sql);
      } catch (err) {
        throw new Error(`migration ${String(migration.version).padStart(3, '0')}_${migration.name} failed: ${(err as Error).message}`);
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
