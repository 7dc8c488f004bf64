// Numbered SQL migrations (`NNN_name.sql`), one folder per backend. Numbers 001–099 belong to the
// control-plane records, 100–199 to the virtual-key store, 200 and up to files, batches and stored
// responses (docs/store.md).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoFileText, repoFolder } from '../../compiler/config/embedded-files.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const FILE_NAME = /^(\d{3})_([a-z0-9_]+)\.sql$/;

/** The gateway's own migrations of one backend (embedded in a one-file build). */
export function backendMigrations(backend: 'sqlite' | 'postgres'): Migration[] {
  const folder = `runtime/store/migrations/${backend}/`;
  return parseMigrations(repoFolder(folder), (file) => repoFileText(folder + file));
}

/** The migrations of a folder on disk. */
export function readMigrations(dir: string): Migration[] {
  return parseMigrations(readdirSync(dir).sort(), (file) => readFileSync(join(dir, file), 'utf8'));
}

function parseMigrations(files: readonly string[], read: (file: string) => string): Migration[] {
  const migrations: Migration[] = [];
  for (const file of files) {
    const m = FILE_NAME.exec(file);
    if (m === null) {
      if (file.endsWith('.sql')) throw new Error(`migration ${file}: name must look like 001_create_things.sql`);
      continue;
    }
    const version = Number(m[1]);
    if (migrations.some((known) => known.version === version)) throw new Error(`migration ${file}: version ${m[1]} is used twice`);
    migrations.push({ version, name: m[2], sql: read(file) });
  }
  return migrations;
}

/** Fails when the database was migrated by a newer gateway that knows steps this one does not. */
export function assertNotNewer(applied: Iterable<number>, migrations: readonly Migration[]): void {
  const known = new Set(migrations.map((m) => m.version));
  for (const version of applied) {
    if (!known.has(version)) {
      throw new Error(`the database has migration ${String(version).padStart(3, '0')}, which this gateway does not know: it was migrated by a newer gateway`);
    }
  }
}

export function migrationLabel(migration: Migration): string {
  return `${String(migration.version).padStart(3, '0')}_${migration.name}`;
}
