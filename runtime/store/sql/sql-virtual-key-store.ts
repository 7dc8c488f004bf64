// VirtualKeyStore on any SqlDatabase (SQLite and PostgreSQL alike); every write is logged for the
// change feed so each process's in-memory ring follows.
import type { Page, PageRequest } from '../page.ts';
import { selectPage } from './select-page.ts';
import { VIRTUAL_KEYS_KIND, type VirtualKeyInput, type VirtualKeyRecord, type VirtualKeyStore } from '../virtual-key-store.ts';
import { nowIso, recordChange } from './record-change.ts';
import type { SqlDatabase } from './sql-database.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';

interface VirtualKeyRow {
  id: string;
  name: string | null;
  slug: string | null;
  provider: string;
  options: string;
  sealed: string;
  key_hint: string | null;
  secret_names: string;
  version: number;
  created_at: string;
  last_updated_at: string;
}

const COLUMNS = 'id, name, slug, provider, options, sealed, key_hint, secret_names, version, created_at, last_updated_at';

export class SqlVirtualKeyStore implements VirtualKeyStore {
  readonly #db: SqlDatabase;

  constructor(db: SqlDatabase) {
    this.#db = db;
  }

  async create(id: string, input: VirtualKeyInput): Promise<VirtualKeyRecord> {
    const now = nowIso();
    return this.#db.transaction(async (tx) => {
      const row = await tx.get<VirtualKeyRow>(
        `INSERT INTO virtual_keys (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?) RETURNING ${COLUMNS}`,
        [id, input.name, input.slug, input.provider, JSON.stringify(input.options), input.sealed, input.keyHint, JSON.stringify(input.secretNames), now, now],
      );
      await recordChange(tx, VIRTUAL_KEYS_KIND, id);
      return toRecord(row!);
    });
  }

  async get(id: string): Promise<VirtualKeyRecord | null> {
    const row = await this.#db.get<VirtualKeyRow>(`SELECT ${COLUMNS} FROM virtual_keys WHERE id = ?`, [id]);
    return row === undefined ? null : toRecord(row);
  }

  async list(page: PageRequest): Promise<Page<VirtualKeyRecord>> {
    return selectPage(this.#db, 'virtual_keys', COLUMNS, page, toRecord);
  }

  async loadAll(): Promise<VirtualKeyRecord[]> {
    return (await this.#db.all<VirtualKeyRow>(`SELECT ${COLUMNS} FROM virtual_keys ORDER BY created_at, id`)).map(toRecord);
  }

  async update(id: string, input: VirtualKeyInput): Promise<VirtualKeyRecord | null> {
    return this.#db.transaction(async (tx) => {
      const row = await tx.get<VirtualKeyRow>(
        `UPDATE virtual_keys SET name = ?, slug = ?, provider = ?, options = ?, sealed = ?, key_hint = ?, secret_names = ?, version = version + 1, last_updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`,
        [input.name, input.slug, input.provider, JSON.stringify(input.options), input.sealed, input.keyHint, JSON.stringify(input.secretNames), nowIso(), id],
      );
      if (row === undefined) return null;
      await recordChange(tx, VIRTUAL_KEYS_KIND, id);
      return toRecord(row);
    });
  }

  async delete(id: string): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const changed = await tx.run('DELETE FROM virtual_keys WHERE id = ?', [id]);
      if (changed > 0) await recordChange(tx, VIRTUAL_KEYS_KIND, id);
      return changed > 0;
    });
  }
}

function toRecord(row: VirtualKeyRow): VirtualKeyRecord {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    provider: row.provider,
    options: parseJson(row.options) as Record<string, unknown>,
    sealed: row.sealed,
    keyHint: row.key_hint,
    secretNames: parseJson(row.secret_names) as string[],
    version: Number(row.version),
    createdAt: row.created_at,
    lastUpdatedAt: row.last_updated_at,
  };
}
