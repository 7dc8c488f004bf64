// SavedConfigStore on any SqlDatabase.
import type { SavedConfigRecord, SavedConfigStore } from '../config-store.ts';
import type { Page, PageRequest } from '../page.ts';
import { selectPage } from './select-page.ts';
import { RECORD_KINDS } from '../record-kinds.ts';
import { nowIso, recordChange } from './record-change.ts';
import { marks } from './clauses.ts';
import type { SqlDatabase, SqlValue } from './sql-database.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';

const CONFIGS_KIND = RECORD_KINDS.configs;

interface ConfigRow {
  id: string;
  name: string | null;
  config: string;
  version: number;
  created_at: string;
  last_updated_at: string;
}

const COLUMNS = 'id, name, config, version, created_at, last_updated_at';

export class SqlConfigStore implements SavedConfigStore {
  readonly #db: SqlDatabase;

  constructor(db: SqlDatabase) {
    this.#db = db;
  }

  async create(input: { id: string; name: string | null; config: Record<string, unknown> }): Promise<SavedConfigRecord> {
    const now = nowIso();
    const record: SavedConfigRecord = { id: input.id, name: input.name, config: input.config, version: 1, createdAt: now, lastUpdatedAt: now };
    await this.#db.transaction(async (tx) => {
      await tx.run(`INSERT INTO saved_configs (${COLUMNS}) VALUES (?, ?, ?, 1, ?, ?)`, [record.id, record.name, JSON.stringify(record.config), now, now]);
      await recordChange(tx, CONFIGS_KIND, record.id);
    });
    return record;
  }

  async get(id: string): Promise<SavedConfigRecord | null> {
    const row = await this.#db.get<ConfigRow>(`SELECT ${COLUMNS} FROM saved_configs WHERE id = ?`, [id]);
    return row === undefined ? null : toRecord(row);
  }

  async list(page: PageRequest, options: { excludeIds?: readonly string[] } = {}): Promise<Page<SavedConfigRecord>> {
    const exclude = options.excludeIds ?? [];
    const where = exclude.length === 0 ? undefined : { sql: ` WHERE id NOT IN (${marks(exclude.length)})`, params: exclude as SqlValue[] };
    return selectPage(this.#db, 'saved_configs', COLUMNS, page, toRecord, where);
  }

  async update(id: string, input: { name?: string | null; config: Record<string, unknown> }): Promise<SavedConfigRecord | null> {
    return this.#db.transaction(async (tx) => {
      const sets = ['config = ?', 'version = version + 1', 'last_updated_at = ?'];
      const params: SqlValue[] = [JSON.stringify(input.config), nowIso()];
      if (input.name !== undefined) {
        sets.push('name = ?');
        params.push(input.name);
      }
      const row = await tx.get<ConfigRow>(`UPDATE saved_configs SET ${sets.join(', ')} WHERE id = ? RETURNING ${COLUMNS}`, [...params, id]);
      if (row === undefined) return null;
      await recordChange(tx, CONFIGS_KIND, id);
      return toRecord(row);
    });
  }

  async delete(id: string): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const changed = await tx.run('DELETE FROM saved_configs WHERE id = ?', [id]);
      if (changed > 0) await recordChange(tx, CONFIGS_KIND, id);
      return changed > 0;
    });
  }
}

function toRecord(row: ConfigRow): SavedConfigRecord {
  return {
    id: row.id,
    name: row.name,
    config: parseJson(row.config) as Record<string, unknown>,
    version: Number(row.version),
    createdAt: row.created_at,
    lastUpdatedAt: row.last_updated_at,
  };
}
