// GuardrailStore on any SqlDatabase.
import type { NamedGuardrail } from '../../../compiler/config/guardrail-lookup.ts';
import type { GuardrailStore, StoredGuardrailRecord } from '../guardrail-store.ts';
import type { Page, PageRequest } from '../page.ts';
import { RECORD_KINDS } from '../record-kinds.ts';
import { nowIso, recordChange } from './record-change.ts';
import { selectPage } from './select-page.ts';
import { marks } from './clauses.ts';
import type { SqlDatabase, SqlValue } from './sql-database.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';

const KIND = RECORD_KINDS.guardrails;

interface GuardrailRow {
  id: string;
  name: string | null;
  guardrail: string;
  version: number;
  created_at: string;
  last_updated_at: string;
}

const COLUMNS = 'id, name, guardrail, version, created_at, last_updated_at';

export class SqlGuardrailStore implements GuardrailStore {
  readonly #db: SqlDatabase;

  constructor(db: SqlDatabase) {
    this.#db = db;
  }

  async create(input: { id: string; name: string | null; guardrail: NamedGuardrail }): Promise<StoredGuardrailRecord> {
    const now = nowIso();
    const record: StoredGuardrailRecord = { id: input.id, name: input.name, guardrail: input.guardrail, version: 1, createdAt: now, lastUpdatedAt: now };
    await this.#db.transaction(async (tx) => {
      await tx.run(`INSERT INTO guardrails (${COLUMNS}) VALUES (?, ?, ?, 1, ?, ?)`, [record.id, record.name, JSON.stringify(record.guardrail), now, now]);
      await recordChange(tx, KIND, record.id);
    });
    return record;
  }

  async get(id: string): Promise<StoredGuardrailRecord | null> {
    const row = await this.#db.get<GuardrailRow>(`SELECT ${COLUMNS} FROM guardrails WHERE id = ?`, [id]);
    return row === undefined ? null : toRecord(row);
  }

  async list(page: PageRequest, options: { excludeIds?: readonly string[] } = {}): Promise<Page<StoredGuardrailRecord>> {
    const exclude = options.excludeIds ?? [];
    const where = exclude.length === 0 ? undefined : { sql: ` WHERE id NOT IN (${marks(exclude.length)})`, params: exclude as SqlValue[] };
    return selectPage(this.#db, 'guardrails', COLUMNS, page, toRecord, where);
  }

  async update(id: string, input: { name?: string | null; guardrail: NamedGuardrail }): Promise<StoredGuardrailRecord | null> {
    return this.#db.transaction(async (tx) => {
      const sets = ['guardrail = ?', 'version = version + 1', 'last_updated_at = ?'];
      const params: SqlValue[] = [JSON.stringify(input.guardrail), nowIso()];
      if (input.name !== undefined) {
        sets.push('name = ?');
        params.push(input.name);
      }
      const row = await tx.get<GuardrailRow>(`UPDATE guardrails SET ${sets.join(', ')} WHERE id = ? RETURNING ${COLUMNS}`, [...params, id]);
      if (row === undefined) return null;
      await recordChange(tx, KIND, id);
      return toRecord(row);
    });
  }

  async delete(id: string): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const changed = await tx.run('DELETE FROM guardrails WHERE id = ?', [id]);
      if (changed > 0) await recordChange(tx, KIND, id);
      return changed > 0;
    });
  }
}

function toRecord(row: GuardrailRow): StoredGuardrailRecord {
  return {
    id: row.id,
    name: row.name,
    guardrail: parseJson(row.guardrail) as NamedGuardrail,
    version: Number(row.version),
    createdAt: row.created_at,
    lastUpdatedAt: row.last_updated_at,
  };
}
