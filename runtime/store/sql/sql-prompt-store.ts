// PromptStore on any SqlDatabase. A new version first bumps `prompts.latest_version` with one UPDATE,
// which takes the row's write lock, so concurrent updates get consecutive numbers.
import type { PromptRecord, PromptStore, PromptTemplate, PromptVersion } from '../prompt-store.ts';
import { type Page, type PageRequest, pageClause } from '../page.ts';
import { RECORD_KINDS } from '../record-kinds.ts';
import { nowIso, recordChange } from './record-change.ts';
import type { SqlDatabase, SqlValue } from './sql-database.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';

const PROMPTS_KIND = RECORD_KINDS.prompts;

interface PromptRow {
  id: string;
  name: string;
  latest_version: number;
  created_at: string;
  last_updated_at: string;
  version: number;
  template: string;
  description: string | null;
}

const SELECT_AT_VERSION = `SELECT p.id, p.name, p.latest_version, p.created_at, p.last_updated_at, v.version, v.template, v.description
  FROM prompts p JOIN prompt_versions v ON v.prompt_id = p.id`;

export class SqlPromptStore implements PromptStore {
  readonly #db: SqlDatabase;

  constructor(db: SqlDatabase) {
    this.#db = db;
  }

  async create(input: { id: string; name: string; template: PromptTemplate; description: string | null }): Promise<PromptRecord> {
    const now = nowIso();
    await this.#db.transaction(async (tx) => {
      await tx.run('INSERT INTO prompts (id, name, latest_version, created_at, last_updated_at) VALUES (?, ?, 1, ?, ?)', [input.id, input.name, now, now]);
      await tx.run('INSERT INTO prompt_versions (prompt_id, version, template, description, created_at) VALUES (?, 1, ?, ?, ?)', [
        input.id, JSON.stringify(input.template), input.description, now,
      ]);
      await recordChange(tx, PROMPTS_KIND, input.id);
    });
    return { id: input.id, name: input.name, version: 1, latestVersion: 1, template: input.template, versionDescription: input.description, createdAt: now, lastUpdatedAt: now };
  }

  async get(id: string, version?: number): Promise<PromptRecord | null> {
    const row =
      version === undefined
        ? await this.#db.get<PromptRow>(`${SELECT_AT_VERSION} AND v.version = p.latest_version WHERE p.id = ?`, [id])
        : await this.#db.get<PromptRow>(`${SELECT_AT_VERSION} AND v.version = ? WHERE p.id = ?`, [version, id]);
    return row === undefined ? null : toRecord(row);
  }

  async list(page: PageRequest): Promise<Page<PromptRecord>> {
    const limit = pageClause(page);
    const rows = await this.#db.all<PromptRow>(`${SELECT_AT_VERSION} AND v.version = p.latest_version ORDER BY p.created_at, p.id${limit.sql}`, limit.params);
    const count = await this.#db.get<{ n: number }>('SELECT CAST(COUNT(*) AS INTEGER) AS n FROM prompts');
    return { items: rows.map(toRecord), total: Number(count?.n ?? 0) };
  }

  async versions(id: string): Promise<PromptVersion[] | null> {
    const rows = await this.#db.all<PromptRow>(`${SELECT_AT_VERSION} WHERE p.id = ? ORDER BY v.version`, [id]);
    if (rows.length === 0) return null;
    return rows.map((row) => ({ version: Number(row.version), template: parseJson(row.template) as PromptTemplate, description: row.description, createdAt: row.created_at }));
  }

  async addVersion(id: string, input: { name?: string; template: PromptTemplate; description: string | null }): Promise<PromptRecord | null> {
    return this.#db.transaction(async (tx) => {
      const now = nowIso();
      const sets = ['latest_version = latest_version + 1', 'last_updated_at = ?'];
      const params: SqlValue[] = [now];
      if (input.name !== undefined) {
        sets.push('name = ?');
        params.push(input.name);
      }
      const head = await tx.get<PromptRow>(`UPDATE prompts SET ${sets.join(', ')} WHERE id = ? RETURNING id, name, latest_version, created_at, last_updated_at`, [...params, id]);
      if (head === undefined) return null;
      const version = Number(head.latest_version);
      await tx.run('INSERT INTO prompt_versions (prompt_id, version, template, description, created_at) VALUES (?, ?, ?, ?, ?)', [
        id, version, JSON.stringify(input.template), input.description, now,
      ]);
      await recordChange(tx, PROMPTS_KIND, id);
      return { id, name: head.name, version, latestVersion: version, template: input.template, versionDescription: input.description, createdAt: head.created_at, lastUpdatedAt: now };
    });
  }

  async delete(id: string): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      // Versions go with the prompt (ON DELETE CASCADE); deleted explicitly too, so a SQLite
      // connection opened without foreign keys cannot leave them behind.
      await tx.run('DELETE FROM prompt_versions WHERE prompt_id = ?', [id]);
      const changed = await tx.run('DELETE FROM prompts WHERE id = ?', [id]);
      if (changed > 0) await recordChange(tx, PROMPTS_KIND, id);
      return changed > 0;
    });
  }
}

function toRecord(row: PromptRow): PromptRecord {
  return {
    id: row.id,
    name: row.name,
    version: Number(row.version),
    latestVersion: Number(row.latest_version),
    template: parseJson(row.template) as PromptTemplate,
    versionDescription: row.description,
    createdAt: row.created_at,
    lastUpdatedAt: row.last_updated_at,
  };
}
