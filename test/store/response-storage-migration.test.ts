// Migration 204 (response_storage) on a store that already kept responses: each row's bytes and each
// organisation's total are counted from what was stored before it, as the store counts new ones, so an
// upgrade starts GATEWAY_RESPONSE_STORAGE_MAX_BYTES from what the organisations really keep.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { backendMigrations } from '../../runtime/store/migration-files.ts';
import { migratePostgres } from '../../runtime/store/postgres/migrate.ts';
import { migrate } from '../../runtime/store/sqlite/migrate.ts';
import { SQLITE_FILE_NAME } from '../../runtime/store/sqlite/database.ts';
import { BACKENDS, createLocation, type StoreLocation } from './backends.ts';

const BEFORE = 204;
const locations: StoreLocation[] = [];
afterAll(async () => {
  for (const location of locations) await location.remove();
});

/** Rows as the store wrote them before the migration: JSON text, with characters of several UTF-8 lengths. */
function rowsOf(orgs: string[]): Array<[string, string, string, string, string]> {
  return [
    [`resp_${randomUUID()}`, orgs[0], '2026-01-01T00:00:00.000Z', JSON.stringify({ output_text: 'héllo' }), JSON.stringify([{ role: 'user', content: '日本' }])],
    [`resp_${randomUUID()}`, orgs[0], '2026-01-02T00:00:00.000Z', JSON.stringify({ output_text: '🙂' }), '[]'],
    [`resp_${randomUUID()}`, orgs[1], '2026-01-03T00:00:00.000Z', '{}', JSON.stringify([{ role: 'user', content: 'plain' }])],
  ];
}

const bytesOf = (row: readonly string[]) => Buffer.byteLength(row[3]) + Buffer.byteLength(row[4]);
const INSERT = 'INSERT INTO stored_responses (id, organisation_id, created_iso, body, conversation) VALUES';

async function storeBeforeMigration(location: StoreLocation, rows: string[][]): Promise<void> {
  const earlier = backendMigrations(location.backend).filter((m) => m.version < BEFORE);
  if (location.databaseUrl === null) {
    const db = new DatabaseSync(join(location.dataDir, SQLITE_FILE_NAME));
    migrate(db, earlier);
    for (const row of rows) db.prepare(`${INSERT} (?, ?, ?, ?, ?)`).run(...row);
    db.close();
    return;
  }
  const pool = new pg.Pool({ connectionString: location.databaseUrl });
  const client = await pool.connect();
  try {
    await migratePostgres(client, earlier);
    for (const row of rows) await client.query(`${INSERT} ($1, $2, $3, $4, $5)`, row);
  } finally {
    client.release();
    await pool.end();
  }
}

describe.each(BACKENDS)('migration 204 on %s', (backend) => {
  it('counts the responses stored before it, per organisation, in UTF-8 bytes', async () => {
    const location = await createLocation(backend);
    locations.push(location);
    const orgs = [randomUUID(), randomUUID()];
    const rows = rowsOf(orgs);
    await storeBeforeMigration(location, rows);
    const store = await location.open();
    try {
      expect(await store.responses.storedBytes(orgs[0])).toBe(bytesOf(rows[0]) + bytesOf(rows[1]));
      expect(await store.responses.storedBytes(orgs[1])).toBe(bytesOf(rows[2]));
      // And a delete after the upgrade takes off what the migration counted.
      expect(await store.responses.delete(orgs[0], rows[0][0])).toBe(true);
      expect(await store.responses.storedBytes(orgs[0])).toBe(bytesOf(rows[1]));
    } finally {
      await store.close();
    }
  });
});
