// ResponseStore on any SqlDatabase. Each row counts its bytes, and so does its organisation's total
// (storage-totals.ts), in the transaction that inserts or deletes it.
import { RECORD_KINDS } from '../record-kinds.ts';
import type { ResponseStore, StoredResponseRecord } from '../response-store.ts';
import { nowIso, recordChange } from './record-change.ts';
import type { SqlDatabase } from './sql-database.ts';
import { addStored, releaseStored, type ReleasedRow, storedTotal } from './storage-totals.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';

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
    const body = JSON.stringify(record.body);
    const conversation = JSON.stringify(record.conversation);
    const bytes = Buffer.byteLength(body) + Buffer.byteLength(conversation);
    await this.#db.transaction(async (tx) => {
      await tx.run('INSERT INTO stored_responses (id, organisation_id, created_iso, body, conversation, bytes) VALUES (?, ?, ?, ?, ?, ?)', [
        record.id, record.organisationId, record.createdIso, body, conversation, bytes,
      ]);
      await addStored(tx, 'responses', record.organisationId, bytes);
      await recordChange(tx, RECORD_KINDS.responses, record.id);
    });
    return record;
  }

  delete(organisationId: string, id: string): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const deleted = await tx.all<ReleasedRow>('DELETE FROM stored_responses WHERE id = ? AND organisation_id = ? RETURNING organisation_id, bytes', [id, organisationId]);
      if (deleted.length === 0) return false;
      await releaseStored(tx, 'responses', deleted);
      await recordChange(tx, RECORD_KINDS.responses, id);
      return true;
    });
  }

  deleteOlderThan(cutoffIso: string, limit: number): Promise<number> {
    // Bounded, so a sweep over a large table never holds the write lock for long. RETURNING names only
    // the rows this statement deleted, so two processes sweeping at once never release a row twice.
    return this.#db.transaction(async (tx) => {
      const deleted = await tx.all<ReleasedRow>(
        'DELETE FROM stored_responses WHERE id IN (SELECT id FROM stored_responses WHERE created_iso < ? ORDER BY created_iso LIMIT ?) RETURNING organisation_id, bytes',
        [cutoffIso, limit],
      );
      await releaseStored(tx, 'responses', deleted);
      return deleted.length;
    });
  }

  storedBytes(organisationId: string): Promise<number> {
    return storedTotal(this.#db, 'responses', organisationId);
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
