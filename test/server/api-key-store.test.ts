// The SQLite API-key store and its migrations. Written against the ApiKeyStore interface so the
// PostgreSQL store can run the same suite later.
import { DatabaseSync } from 'node:sqlite';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../runtime/store/api-key-secret.ts';
import { InvalidApiKeyInput } from '../../runtime/store/api-key-input.ts';
import { type GatewayStore, openStore } from '../../runtime/store/open-store.ts';
import { SQLITE_FILE_NAME } from '../../runtime/store/sqlite/database.ts';
import { migrate, readMigrations } from '../../runtime/store/sqlite/migrate.ts';
import { tempDataDir, UUID } from './helpers.ts';

let data: ReturnType<typeof tempDataDir>;
let store: GatewayStore;

beforeEach(() => {
  data = tempDataDir();
  store = openStore(data.dir);
});

afterEach(async () => {
  await store.close();
  data.remove();
});

describe('ApiKeyStore on SQLite', () => {
  it('creates keys in the gw_ + 32 random bytes format and stores only their hash', async () => {
    const { key, record } = await store.apiKeys.create({ name: 'ci', scope: 'admin' });
    expect(key).toMatch(/^gw_[A-Za-z0-9_-]{43}$/);
    expect(record).toMatchObject({ name: 'ci', scope: 'admin', revokedAt: null });
    expect(record.id).toMatch(UUID);
    expect(record.workspaceId).toMatch(UUID);
    expect(record.organisationId).toMatch(UUID);
    expect(new Date(record.createdAt).toISOString()).toBe(record.createdAt);
    expect(await store.apiKeys.loadActive()).toEqual([{ hash: hashApiKey(key), record }]);

    const db = new DatabaseSync(join(data.dir, SQLITE_FILE_NAME), { readOnly: true });
    const dump = JSON.stringify(db.prepare('SELECT * FROM api_keys').all());
    db.close();
    expect(dump).not.toContain(key);
    expect(dump).toContain(hashApiKey(key));
  });

  it('gives every key of one store the same default workspace and organisation', async () => {
    const a = await store.apiKeys.create();
    const b = await store.apiKeys.create();
    expect(a.key).not.toBe(b.key);
    expect(b.record.workspaceId).toBe(a.record.workspaceId);
    expect(b.record.organisationId).toBe(a.record.organisationId);
    expect(a.record.scope).toBe('inference');
    const explicit = await store.apiKeys.create({ workspaceId: '6F1C3A52-1C1B-4E8A-9C39-3D7A2E0C1B11', organisationId: 'b1b8cfc6-5a86-4a3e-a1b5-0c2cf84ab8e4' });
    expect(explicit.record.workspaceId).toBe('6f1c3a52-1c1b-4e8a-9c39-3d7a2e0c1b11');
  });

  it('refuses invalid input', async () => {
    await expect(store.apiKeys.create({ scope: 'root' as never })).rejects.toBeInstanceOf(InvalidApiKeyInput);
    await expect(store.apiKeys.create({ workspaceId: 'ws-1' })).rejects.toBeInstanceOf(InvalidApiKeyInput);
    await expect(store.apiKeys.create({ name: 'n'.repeat(256) })).rejects.toBeInstanceOf(InvalidApiKeyInput);
    expect(await store.apiKeys.list()).toEqual([]);
  });

  it('lists keys oldest first and revokes them once', async () => {
    const first = await store.apiKeys.create({ name: 'first' });
    const second = await store.apiKeys.create({ name: 'second' });
    expect((await store.apiKeys.list()).map((r) => r.name)).toEqual(['first', 'second']);
    const revoked = await store.apiKeys.revoke(first.record.id);
    expect(revoked?.revokedAt).not.toBeNull();
    const again = await store.apiKeys.revoke(first.record.id);
    expect(again?.revokedAt).toBe(revoked?.revokedAt);
    expect(await store.apiKeys.revoke('no-such-id')).toBeNull();
    expect((await store.apiKeys.loadActive()).map((k) => k.record.id)).toEqual([second.record.id]);
  });

  it('stores an operator key once, and keeps it revoked across restarts', async () => {
    const seeded = await store.apiKeys.ensureKey('operator-chosen-key', { name: 'GATEWAY_API_KEY', scope: 'admin' });
    expect(seeded.created).toBe(true);
    const again = await store.apiKeys.ensureKey('operator-chosen-key', { name: 'other' });
    expect(again).toEqual({ record: seeded.record, created: false });
    await store.apiKeys.revoke(seeded.record.id);
    const afterRevoke = await store.apiKeys.ensureKey('operator-chosen-key');
    expect(afterRevoke.created).toBe(false);
    expect(afterRevoke.record.revokedAt).not.toBeNull();
    expect(await store.apiKeys.loadActive()).toEqual([]);
  });

  it('keeps keys across reopening the same data directory', async () => {
    const { key } = await store.apiKeys.create({ name: 'durable' });
    await store.close();
    store = openStore(data.dir);
    expect((await store.apiKeys.loadActive()).map((k) => k.hash)).toEqual([hashApiKey(key)]);
  });

  it('opens the database in WAL mode with migrations recorded', () => {
    const db = new DatabaseSync(join(data.dir, SQLITE_FILE_NAME), { readOnly: true });
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    // 001 is the key table; later migrations (002+) belong to the other control-plane records (test/store).
    expect(db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all()[0]).toEqual({ version: 1, name: 'api_keys' });
    db.close();
  });
});

describe('migrations', () => {
  function migrationsDir(files: Record<string, string>): string {
    const dir = join(data.dir, `migrations-${Math.random().toString(36).slice(2)}`);
    mkdirSync(dir);
    for (const [name, sql] of Object.entries(files)) writeFileSync(join(dir, name), sql);
    return dir;
  }

  it('applies pending migrations in order, once', () => {
    const db = new DatabaseSync(':memory:');
    const dir = migrationsDir({ '002_b.sql': 'ALTER TABLE t ADD COLUMN b TEXT;', '001_a.sql': 'CREATE TABLE t (a TEXT);', 'README.md': 'ignored' });
    expect(migrate(db, readMigrations(dir))).toEqual([1, 2]);
    expect(migrate(db, readMigrations(dir))).toEqual([]);
    expect(db.prepare('SELECT name FROM pragma_table_info(?)').all('t').map((r) => r.name)).toEqual(['a', 'b']);
  });

  it('rolls back every step of a run when one fails', () => {
    const db = new DatabaseSync(':memory:');
    const dir = migrationsDir({ '001_a.sql': 'CREATE TABLE t (a TEXT);', '002_bad.sql': 'THIS IS NOT SQL;' });
    expect(() => migrate(db, readMigrations(dir))).toThrow(/002_bad failed/);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name IN ('t', 'schema_migrations')").get()).toEqual({ n: 0 });
  });

  it('refuses badly named files, repeated versions and databases from a newer gateway', () => {
    expect(() => readMigrations(migrationsDir({ '1_a.sql': '' }))).toThrow(/001_create_things/);
    expect(() => readMigrations(migrationsDir({ '001_a.sql': '', '001_b.sql': '' }))).toThrow(/used twice/);
    const db = new DatabaseSync(':memory:');
    migrate(db, readMigrations(migrationsDir({ '001_a.sql': 'SELECT 1;', '002_b.sql': 'SELECT 1;' })));
    expect(() => migrate(db, readMigrations(migrationsDir({ '001_a.sql': 'SELECT 1;' })))).toThrow(/newer gateway/);
  });
});
