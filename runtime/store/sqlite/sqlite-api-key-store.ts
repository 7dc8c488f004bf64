// ApiKeyStore on node:sqlite. The synchronous driver is wrapped in async methods so callers are
// written once for this and for the PostgreSQL store.
import { randomUUID } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { ActiveApiKey, ApiKeyRecord, ApiKeyStore, CreateApiKeyInput, CreatedApiKey } from '../api-key-store.ts';
import { isApiKeyScope } from '../api-key-store.ts';
import { generateApiKey, hashApiKey } from '../api-key-secret.ts';
import { normaliseCreateInput } from '../api-key-input.ts';

interface ApiKeyRow {
  id: string;
  key_hash: string;
  name: string;
  scope: string;
  workspace_id: string;
  organisation_id: string;
  created_at: string;
  revoked_at: string | null;
}

const COLUMNS = 'id, key_hash, name, scope, workspace_id, organisation_id, created_at, revoked_at';

export class SqliteApiKeyStore implements ApiKeyStore {
  private readonly db: DatabaseSync;
  private readonly insert: StatementSync;
  private readonly byHash: StatementSync;
  private readonly byId: StatementSync;
  private readonly all: StatementSync;
  private readonly active: StatementSync;
  private readonly markRevoked: StatementSync;
  private readonly defaults: { workspaceId: string; organisationId: string };

  constructor(db: DatabaseSync) {
    this.db = db;
    this.insert = db.prepare(`INSERT INTO api_keys (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)`);
    this.byHash = db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = ?`);
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?`);
    this.all = db.prepare(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, rowid`);
    this.active = db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE revoked_at IS NULL`);
    this.markRevoked = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.defaults = { workspaceId: this.setting('default_workspace_id'), organisationId: this.setting('default_organisation_id') };
  }

  async create(input: CreateApiKeyInput = {}): Promise<CreatedApiKey> {
    const key = generateApiKey();
    return { key, record: this.insertKey(hashApiKey(key), input) };
  }

  async ensureKey(key: string, input: CreateApiKeyInput = {}): Promise<{ record: ApiKeyRecord; created: boolean }> {
    const hash = hashApiKey(key);
    const existing = this.byHash.get(hash) as ApiKeyRow | undefined;
    if (existing !== undefined) return { record: toRecord(existing), created: false };
    return { record: this.insertKey(hash, input), created: true };
  }

  async list(): Promise<ApiKeyRecord[]> {
    return (this.all.all() as unknown as ApiKeyRow[]).map(toRecord);
  }

  async revoke(id: string): Promise<ApiKeyRecord | null> {
    this.markRevoked.run(new Date().toISOString(), id);
    const row = this.byId.get(id) as ApiKeyRow | undefined;
    return row === undefined ? null : toRecord(row);
  }

  async loadActive(): Promise<ActiveApiKey[]> {
    return (this.active.all() as unknown as ApiKeyRow[]).map((row) => ({ hash: row.key_hash, record: toRecord(row) }));
  }

  private insertKey(hash: string, input: CreateApiKeyInput): ApiKeyRecord {
    const fields = normaliseCreateInput(input, this.defaults);
    const record: ApiKeyRecord = { id: randomUUID(), ...fields, createdAt: new Date().toISOString(), revokedAt: null };
    this.insert.run(record.id, hash, record.name, record.scope, record.workspaceId, record.organisationId, record.createdAt);
    return record;
  }

  /** Reads an installation-wide generated value, creating it on first use. */
  private setting(name: string): string {
    this.db.prepare('INSERT OR IGNORE INTO gateway_settings (name, value) VALUES (?, ?)').run(name, randomUUID());
    const row = this.db.prepare('SELECT value FROM gateway_settings WHERE name = ?').get(name) as { value: string };
    return row.value;
  }
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  if (!isApiKeyScope(row.scope)) throw new Error(`api key ${row.id} has an unknown scope ${JSON.stringify(row.scope)}`);
  return {
    id: row.id,
    name: row.name,
    scope: row.scope,
    workspaceId: row.workspace_id,
    organisationId: row.organisation_id,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}
