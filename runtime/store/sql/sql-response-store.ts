// ResponseStore on any SqlDatabase.
import { RECORD_KINDS } from '../record-kinds.ts';
import type { ResponseStore, StoredResponseRecord } from '../response-store.ts';
import { nowIso, recordChange } from './record-change.ts';
import type { SqlDatabase } from './sql-database.ts';
import { parseJson } from '../../core/json-parse.ts';

interface ResponseRow {
  id: string;
  organisation_id: string;
  created_iso: string;
  body: string;
  conversation: string;
}

export class SqlResponseStore implements ResponseStore {
  readonly #db: SqlDatabase;

  constructor(db: SqlDatabase) {
    this.#db = db;
  }

  async create(input: Omit<StoredResponseRecord, 'createdIso'>): Promise<StoredResponseRecord> {
    const record: StoredResponseRecord = { ...input, createdIso: nowIso() };
    await this.#db.transaction(async (tx) => {
      await tx.run('INSERT INTO stored_responses (id, organisation_id, created_iso, body, conversation) VALUES (?, ?, ?, ?, ?)', [
        record.id, record.organisationId, record.createdIso, JSON.stringify(record.body), JSON.stringify(record.conversation),
      ]);
      await recordChange(tx, RECORD_KINDS.responses, record.id);
    });
    return record;
  }

  delete(organisationId: string, id: string): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const changed = await tx.run('DELETE FROM stored_responses WHERE id = ? AND organisation_id = ?', [id, organisationId]);
      if (changed === 0) return false;
      await recordChange(tx, RECORD_KINDS.responses, id);
      return true;
    });
  }

  deleteOlderThan(cutoffIso: string, limit: number): Promise<number> {
    // Bounded, so a sweep over a large table never holds the write lock for long.
    return this.#db.run('DELETE FROM stored_responses WHERE id IN (SELECT id FROM stored_responses WHERE created_iso < ? ORDER BY created_iso LIMIT ?)', [cutoffIso, limit]);
  }

  async get(organisationId: string, id: string): Promise<StoredResponseRecord | null> {
    const row = await this.#db.get<ResponseRow>('SELECT id, organisation_id, created_iso, body, conversation FROM stored_responses WHERE id = ? AND organisation_id = ?', [id, organisationId]);
    if (row === undefined) return null;
    return {
      id: row.id,
      organisationId: row.organisation_id,
      createdIso: row.created_iso,
      body: parseJson(row.body) as Record<string, unknown>,
      conversation: parseJson(row.conversation) as unknown[],
    };
  }
}
