// Migration 204 (storage_totals) on a store that already kept files and responses: each response's
// bytes and each organisation's totals are counted from what was stored before it, as the store
// counts new ones, so an upgrade starts the storage limits (GATEWAY_FILE_STORAGE_MAX_BYTES,
// GATEWAY_RESPONSE_STORAGE_MAX_BYTES) from what the organisations really keep.
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

/** Responses as the store wrote them before the migration: JSON text, with characters of several UTF-8 lengths. */
function responsesOf(orgs: string[]): string[][] {
  return [
    [`resp_${randomUUID()}`, orgs[0], '2026-01-01T00:00:00.000Z', JSON.stringify({ output_text: 'héllo' }), JSON.stringify([{ role: 'user', content: '日本' }])],
    [`resp_${randomUUID()}`, orgs[0], '2026-01-02T00:00:00.000Z', JSON.stringify({ output_text: '🙂' }), '[]'],
    [`resp_${randomUUID()}`, orgs[1], '2026-01-03T00:00:00.000Z', '{}', JSON.stringify([{ role: 'user', content: 'plain' }])],
  ];
}

/** Files' rows (their contents do not matter to the count: `bytes` is the file's size). */
function filesOf(orgs: string[]): Array<[string, string, string, string, number, number, string]> {
  return [
    [`file-gw${randomUUID()}`, orgs[0], 'batch', 'a.jsonl', 1000, 1, '2026-01-01T00:00:00.000Z'],
    [`file-gw${randomUUID()}`, orgs[1], 'batch', 'b.jsonl', 250, 1, '2026-01-01T00:00:00.000Z'],
    [`file-gw${randomUUID()}`, orgs[1], 'fine-tune', 'c.jsonl', 7, 1, '2026-01-01T00:00:00.000Z'],
  ];
}

const responseBytes = (row: readonly string[]) => Buffer.byteLength(row[3]) + Buffer.byteLength(row[4]);
const INSERT_RESPONSE = 'INSERT INTO stored_responses (id, organisation_id, created_iso, body, conversation) VALUES';
const INSERT_FILE = 'INSERT INTO gateway_files (id, organisation_id, purpose, filename, bytes, created_at, created_iso) VALUES';

async function storeBeforeMigration(location: StoreLocation, responses: string[][], files: unknown[][]): Promise<void> {
  const earlier = backendMigrations(location.backend).filter((m) => m.version < BEFORE);
  if (location.databaseUrl === null) {
    const db = new DatabaseSync(join(location.dataDir, SQLITE_FILE_NAME));
    migrate(db, earlier);
    for (const row of responses) db.prepare(`${INSERT_RESPONSE} (?, ?, ?, ?, ?)`).run(...row);
    for (const row of files) db.prepare(`${INSERT_FILE} (?, ?, ?, ?, ?, ?, ?)`).run(...(row as string[]));
    db.close();
    return;
  }
  const pool = new pg.Pool({ connectionString: location.databaseUrl });
  const client = await pool.connect();
  try {
    await migratePostgres(client, earlier);
    for (const row of responses) await client.query(`${INSERT_RESPONSE} ($1, $2, $3, $4, $5)`, row);
    for (const row of files) await client.query(`${INSERT_FILE} ($1, $2, $3, $4, $5, $6, $7)`, row);
  } finally {
    client.release();
    await pool.end();
  }
}

describe.each(BACKENDS)('migration 204 on %s', (backend) => {
  it('counts the files and responses stored before it, per organisation, responses in UTF-8 bytes', async () => {
    const location = await createLocation(backend);
    locations.push(location);
    const orgs = [randomUUID(), randomUUID()];
    const responses = responsesOf(orgs);
    await storeBeforeMigration(location, responses, filesOf(orgs));
    const store = await location.open();
    try {
      expect(await store.responses.storedBytes(orgs[0])).toBe(responseBytes(responses[0]) + responseBytes(responses[1]));
      expect(await store.responses.storedBytes(orgs[1])).toBe(responseBytes(responses[2]));
      expect(await store.files.storedBytes(orgs[0])).toBe(1000);
      expect(await store.files.storedBytes(orgs[1])).toBe(257);
      expect(await store.files.storedBytes(randomUUID())).toBe(0);
      // And deletes after the upgrade take off what the migration counted.
      expect(await store.responses.delete(orgs[0], responses[0][0])).toBe(true);
      expect(await store.responses.storedBytes(orgs[0])).toBe(responseBytes(responses[1]));
      const file = (await store.files.list(orgs[1], { limit: 10, order: 'asc' })).items.find((f) => f.bytes === 250)!;
      expect(await store.files.delete(orgs[1], file.id)).toBe(true);
      expect(await store.files.storedBytes(orgs[1])).toBe(7);
    } finally {
      await store.close();
    }
  });
});
