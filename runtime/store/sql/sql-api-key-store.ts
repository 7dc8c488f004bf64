// ApiKeyStore on any SqlDatabase.
import { randomUUID } from 'node:crypto';
import type { ActiveApiKey, ApiKeyRecord, ApiKeyStore, CreateApiKeyInput, CreatedApiKey } from '../api-key-store.ts';
import { isApiKeyScope } from '../api-key-store.ts';
import { generateApiKey, hashApiKey } from '../api-key-secret.ts';
import { normaliseCreateInput } from '../api-key-input.ts';
import { RECORD_KINDS } from '../record-kinds.ts';
import { nowIso, recordChange } from './record-change.ts';
import { marks } from './clauses.ts';
import { type SqlDatabase, UniqueViolationError } from './sql-database.ts';

/** Ids per statement of loadActiveByIds. */
const ID_CHUNK = 500;

const API_KEYS_KIND = RECORD_KINDS.apiKeys;

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

export class SqlApiKeyStore implements ApiKeyStore {
  readonly #db: SqlDatabase;
  #defaults: Promise<{ workspaceId: string; organisationId: string }> | null = null;

  constructor(db: SqlDatabase) {
    this.#db = db;
  }

  async create(input: CreateApiKeyInput = {}): Promise<CreatedApiKey> {
    const key = generateApiKey();
    return { key, record: await this.#insert(hashApiKey(key), input) };
  }

  async ensureKey(key: string, input: CreateApiKeyInput = {}): Promise<{ record: ApiKeyRecord; created: boolean }> {
    const hash = hashApiKey(key);
    const existing = await this.#byHash(hash);
    if (existing !== null) return { record: existing, created: false };
    try {
      return { record: await this.#insert(hash, input), created: true };
    } catch (error) {
      // Another process seeded the same key a moment ago.
      const raced = error instanceof UniqueViolationError ? await this.#byHash(hash) : null;
      if (raced === null) throw error;
      return { record: raced, created: false };
    }
  }

  async list(filter: { organisationId?: string } = {}): Promise<ApiKeyRecord[]> {
    const rows =
      filter.organisationId === undefined
        ? await this.#db.all<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`)
        : await this.#db.all<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE organisation_id = ? ORDER BY created_at, id`, [filter.organisationId]);
    return rows.map(toRecord);
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    const row = await this.#db.get<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?`, [id]);
    return row === undefined ? null : toRecord(row);
  }

  async revoke(id: string): Promise<ApiKeyRecord | null> {
    return this.#db.transaction(async (tx) => {
      const changed = await tx.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [nowIso(), id]);
      if (changed > 0) await recordChange(tx, API_KEYS_KIND, id);
      const row = await tx.get<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?`, [id]);
      return row === undefined ? null : toRecord(row);
    });
  }

  async loadActive(): Promise<ActiveApiKey[]> {
    const rows = await this.#db.all<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE revoked_at IS NULL`);
    return rows.map(activeOf);
  }

  async loadActiveByIds(ids: readonly string[]): Promise<ActiveApiKey[]> {
    const found: ActiveApiKey[] = [];
    // A few hundred at a time: every backend takes that many parameters in one statement.
    for (let start = 0; start < ids.length; start += ID_CHUNK) {
      const chunk = ids.slice(start, start + ID_CHUNK);
      const rows = await this.#db.all<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE revoked_at IS NULL AND id IN (${marks(chunk.length)})`, chunk);
      found.push(...rows.map(activeOf));
    }
    return found;
  }

  async #byHash(hash: string): Promise<ApiKeyRecord | null> {
    const row = await this.#db.get<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = ?`, [hash]);
    return row === undefined ? null : toRecord(row);
  }

  async #insert(hash: string, input: CreateApiKeyInput): Promise<ApiKeyRecord> {
    const fields = normaliseCreateInput(input, await this.#installationDefaults());
    const record: ApiKeyRecord = { id: randomUUID(), ...fields, createdAt: nowIso(), revokedAt: null };
    await this.#db.transaction(async (tx) => {
      await tx.run(`INSERT INTO api_keys (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)`, [
        record.id, hash, record.name, record.scope, record.workspaceId, record.organisationId, record.createdAt,
      ]);
      await recordChange(tx, API_KEYS_KIND, record.id);
    });
    return record;
  }

  /** The installation's default workspace and organisation, generated once, shared by every process. */
  #installationDefaults(): Promise<{ workspaceId: string; organisationId: string }> {
    this.#defaults ??= (async () => ({
      workspaceId: await this.#setting('default_workspace_id'),
      organisationId: await this.#setting('default_organisation_id'),
    }))();
    this.#defaults.catch(() => {
      this.#defaults = null;
    });
    return this.#defaults;
  }

  async #setting(name: string): Promise<string> {
    await this.#db.run('INSERT INTO gateway_settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', [name, randomUUID()]);
    const row = await this.#db.get<{ value: string }>('SELECT value FROM gateway_settings WHERE name = ?', [name]);
    if (row === undefined) throw new Error(`gateway setting ${name} is missing right after it was written`);
    return row.value;
  }
}

function activeOf(row: ApiKeyRow): ActiveApiKey {
  return { hash: row.key_hash, record: toRecord(row) };
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
