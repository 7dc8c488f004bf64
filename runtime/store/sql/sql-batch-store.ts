// BatchStore on any SqlDatabase. Status changes and the lease are single guarded UPDATEs (`… AND
// lease_owner = ?`), so a runner that lost its lease changes nothing; settling is one transaction
// that writes the output and error files and the final record together.
import type {
  BatchLineError, BatchPage, BatchRecord, BatchSettlement, BatchStatus, BatchStore, LineResult, NewBatch,
} from '../batch-store.ts';
import { RECORD_KINDS } from '../record-kinds.ts';
import { insertFile } from './sql-file-store.ts';
import { nowIso, recordChange } from './record-change.ts';
import { marks } from './clauses.ts';
import type { SqlDatabase, SqlValue } from './sql-database.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';

const BATCHES_KIND = RECORD_KINDS.batches;
const COLUMNS =
  'id, organisation_id, endpoint, input_file_id, content_file_id, completion_window, status, created_at, created_iso, in_progress_at, expires_at, ' +
  'finalizing_at, completed_at, failed_at, expired_at, cancelling_at, cancelled_at, output_file_id, error_file_id, total, completed, ' +
  'failed, metadata, errors, route, lease_owner, lease_expires_ms';
const ACTIVE = "('validating', 'in_progress', 'finalizing', 'cancelling')";
const SETTLED_AT: Record<BatchSettlement, string> = { completed: 'completed_at', cancelled: 'cancelled_at', expired: 'expired_at' };

type Num = number | string | null;

interface BatchRow {
  id: string;
  organisation_id: string;
  endpoint: string;
  input_file_id: string;
  content_file_id: string;
  completion_window: string;
  status: string;
  created_at: Num;
  created_iso: string;
  in_progress_at: Num;
  expires_at: Num;
  finalizing_at: Num;
  completed_at: Num;
  failed_at: Num;
  expired_at: Num;
  cancelling_at: Num;
  cancelled_at: Num;
  output_file_id: string | null;
  error_file_id: string | null;
  total: Num;
  completed: Num;
  failed: Num;
  metadata: string | null;
  errors: string | null;
  route: string;
  lease_owner: string | null;
  lease_expires_ms: Num;
}

export class SqlBatchStore implements BatchStore {
  readonly #db: SqlDatabase;

  constructor(db: SqlDatabase) {
    this.#db = db;
  }

  async create(input: NewBatch): Promise<BatchRecord> {
    const createdIso = input.createdAtMs === undefined ? nowIso() : new Date(input.createdAtMs).toISOString();
    const createdAt = Math.floor(Date.parse(createdIso) / 1000);
    const row = await this.#db.transaction(async (tx) => {
      const inserted = await tx.get<BatchRow>(
        `INSERT INTO gateway_batches (id, organisation_id, endpoint, input_file_id, content_file_id, completion_window, status, created_at, created_iso, expires_at, metadata, route, lease_owner, lease_expires_ms)
         VALUES (?, ?, ?, ?, ?, ?, 'validating', ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
        [input.id, input.organisationId, input.endpoint, input.inputFileId, input.contentFileId, input.completionWindow, createdAt, createdIso, input.expiresAt,
          input.metadata === null ? null : JSON.stringify(input.metadata), input.route, input.leaseOwner, input.leaseExpiresMs],
      );
      await recordChange(tx, BATCHES_KIND, input.id);
      return inserted!;
    });
    return (await this.#withCounts([row]))[0];
  }

  async get(organisationId: string, id: string): Promise<BatchRecord | null> {
    const row = await this.#db.get<BatchRow>(`SELECT ${COLUMNS} FROM gateway_batches WHERE id = ? AND organisation_id = ?`, [id, organisationId]);
    return row === undefined ? null : (await this.#withCounts([row]))[0];
  }

  async load(id: string): Promise<BatchRecord | null> {
    const row = await this.#db.get<BatchRow>(`SELECT ${COLUMNS} FROM gateway_batches WHERE id = ?`, [id]);
    return row === undefined ? null : (await this.#withCounts([row]))[0];
  }

  async list(organisationId: string, options: { after?: string; limit: number }): Promise<BatchPage> {
    const where = ['organisation_id = ?'];
    const params: SqlValue[] = [organisationId];
    if (options.after !== undefined) {
      const cursor = await this.#db.get<{ created_iso: string }>('SELECT created_iso FROM gateway_batches WHERE id = ? AND organisation_id = ?', [options.after, organisationId]);
      if (cursor === undefined) return { items: [], hasMore: false, afterFound: false };
      where.push('(created_iso < ? OR (created_iso = ? AND id < ?))');
      params.push(cursor.created_iso, cursor.created_iso, options.after);
    }
    const rows = await this.#db.all<BatchRow>(
      `SELECT ${COLUMNS} FROM gateway_batches WHERE ${where.join(' AND ')} ORDER BY created_iso DESC, id DESC LIMIT ?`,
      [...params, options.limit + 1],
    );
    return { items: await this.#withCounts(rows.slice(0, options.limit)), hasMore: rows.length > options.limit, afterFound: true };
  }

  async claimable(nowMs: number, limit: number): Promise<string[]> {
    const rows = await this.#db.all<{ id: string }>(
      `SELECT id FROM gateway_batches WHERE status IN ${ACTIVE} AND (lease_owner IS NULL OR lease_expires_ms < ?) ORDER BY created_iso, id LIMIT ?`,
      [nowMs, limit],
    );
    return rows.map((row) => row.id);
  }

  async claim(id: string, owner: string, nowMs: number, leaseMs: number): Promise<BatchRecord | null> {
    const row = await this.#db.get<BatchRow>(
      `UPDATE gateway_batches SET lease_owner = ?, lease_expires_ms = ?
       WHERE id = ? AND status IN ${ACTIVE} AND (lease_owner IS NULL OR lease_owner = ? OR lease_expires_ms < ?) RETURNING ${COLUMNS}`,
      [owner, nowMs + leaseMs, id, owner, nowMs],
    );
    return row === undefined ? null : (await this.#withCounts([row]))[0];
  }

  async renew(id: string, owner: string, nowMs: number, leaseMs: number): Promise<BatchStatus | null> {
    const row = await this.#db.get<{ status: string }>(
      'UPDATE gateway_batches SET lease_expires_ms = ? WHERE id = ? AND lease_owner = ? RETURNING status',
      [nowMs + leaseMs, id, owner],
    );
    return row === undefined ? null : (row.status as BatchStatus);
  }

  async release(id: string, owner: string): Promise<void> {
    await this.#db.run('UPDATE gateway_batches SET lease_owner = NULL, lease_expires_ms = NULL WHERE id = ? AND lease_owner = ?', [id, owner]);
  }

  async requestCancel(organisationId: string, id: string, nowS: number): Promise<{ record: BatchRecord; changed: boolean } | null> {
    const changed = await this.#db.transaction(async (tx) => {
      const row = await tx.get<BatchRow>(
        `UPDATE gateway_batches SET status = 'cancelling', cancelling_at = ?
         WHERE id = ? AND organisation_id = ? AND status IN ('validating', 'in_progress') RETURNING ${COLUMNS}`,
        [nowS, id, organisationId],
      );
      if (row !== undefined) await recordChange(tx, BATCHES_KIND, id);
      return row;
    });
    if (changed !== undefined) return { record: (await this.#withCounts([changed]))[0], changed: true };
    const record = await this.get(organisationId, id);
    return record === null ? null : { record, changed: false };
  }

  startRunning(id: string, owner: string, total: number, nowS: number): Promise<BatchRecord | null> {
    return this.#transition(
      id,
      `status = CASE WHEN status = 'validating' THEN 'in_progress' ELSE status END,
       in_progress_at = CASE WHEN status = 'validating' THEN ? ELSE in_progress_at END, total = ?`,
      [nowS, total],
      owner,
      "status IN ('validating', 'cancelling')",
    );
  }

  fail(id: string, owner: string, errors: BatchLineError[], nowS: number): Promise<BatchRecord | null> {
    // Invalid input settles a batch cancelled while it was validating as cancelled (with the errors), any other as failed.
    return this.#transition(
      id,
      `status = CASE WHEN status = 'cancelling' THEN 'cancelled' ELSE 'failed' END,
       failed_at = CASE WHEN status = 'cancelling' THEN failed_at ELSE ? END,
       cancelled_at = CASE WHEN status = 'cancelling' THEN ? ELSE cancelled_at END,
       errors = ?, total = 0, completed = 0, failed = 0, lease_owner = NULL, lease_expires_ms = NULL`,
      [nowS, nowS, JSON.stringify(errors)],
      owner,
      "status IN ('validating', 'cancelling')",
    );
  }

  markFinalizing(id: string, owner: string, nowS: number): Promise<BatchRecord | null> {
    return this.#transition(id, "status = 'finalizing', finalizing_at = ?", [nowS], owner, "status = 'in_progress'");
  }

  async doneLines(id: string): Promise<Set<number>> {
    const rows = await this.#db.all<{ line_index: Num }>('SELECT line_index FROM gateway_batch_results WHERE batch_id = ?', [id]);
    return new Set(rows.map((row) => Number(row.line_index)));
  }

  async recordResult(id: string, result: LineResult): Promise<boolean> {
    // Only while the batch has work left: a late result from a process that lost the batch must not
    // outlive the batch's settling (which deletes the results it moved into files).
    const changed = await this.#db.run(
      `INSERT INTO gateway_batch_results (batch_id, line_index, outcome, line)
       SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM gateway_batches WHERE id = ? AND status IN ${ACTIVE})
       ON CONFLICT (batch_id, line_index) DO NOTHING`,
      [id, result.lineIndex, result.outcome, result.line, id],
    );
    return changed > 0;
  }

  async settle(id: string, owner: string, settlement: BatchSettlement, nowS: number): Promise<BatchRecord | null> {
    const row = await this.#db.transaction(async (tx) => {
      // Takes the row's lock first, so the results read next are the final ones.
      const batch = await tx.get<BatchRow>(`UPDATE gateway_batches SET lease_expires_ms = lease_expires_ms WHERE id = ? AND lease_owner = ? AND status IN ${ACTIVE} RETURNING ${COLUMNS}`, [id, owner]);
      if (batch === undefined) return undefined;
      const results = await tx.all<{ outcome: string; line: string }>('SELECT outcome, line FROM gateway_batch_results WHERE batch_id = ? ORDER BY line_index', [id]);
      const outputs = results.filter((r) => r.outcome === 'output').map((r) => r.line);
      const errors = results.filter((r) => r.outcome === 'error').map((r) => r.line);
      const outputFile = outputs.length === 0 ? null : await insertFile(tx, jsonlFile(batch, 'output', outputs));
      const errorFile = errors.length === 0 ? null : await insertFile(tx, jsonlFile(batch, 'error', errors));
      const total = Math.max(Number(batch.total ?? 0), results.length);
      const settled = await tx.get<BatchRow>(
        `UPDATE gateway_batches SET status = ?, ${SETTLED_AT[settlement]} = ?, total = ?, completed = ?, failed = ?, output_file_id = ?, error_file_id = ?,
           lease_owner = NULL, lease_expires_ms = NULL WHERE id = ? RETURNING ${COLUMNS}`,
        [settlement, nowS, total, outputs.length, errors.length, outputFile?.id ?? null, errorFile?.id ?? null, id],
      );
      await tx.run('DELETE FROM gateway_batch_results WHERE batch_id = ?', [id]);
      await recordChange(tx, BATCHES_KIND, id);
      return settled;
    });
    return row === undefined ? null : toRecord(row, null);
  }

  async #transition(id: string, sets: string, params: SqlValue[], owner: string, condition: string): Promise<BatchRecord | null> {
    const row = await this.#db.transaction(async (tx) => {
      const updated = await tx.get<BatchRow>(`UPDATE gateway_batches SET ${sets} WHERE id = ? AND lease_owner = ? AND ${condition} RETURNING ${COLUMNS}`, [...params, id, owner]);
      if (updated !== undefined) await recordChange(tx, BATCHES_KIND, id);
      return updated;
    });
    return row === undefined ? null : (await this.#withCounts([row]))[0];
  }

  /** Records of batches still running count their results; settled ones carry their final counts. */
  async #withCounts(rows: BatchRow[]): Promise<BatchRecord[]> {
    const running = rows.filter((row) => row.completed === null).map((row) => row.id);
    const counts = new Map<string, { completed: number; failed: number }>();
    if (running.length > 0) {
      const grouped = await this.#db.all<{ batch_id: string; outcome: string; n: Num }>(
        `SELECT batch_id, outcome, CAST(COUNT(*) AS INTEGER) AS n FROM gateway_batch_results WHERE batch_id IN (${marks(running.length)}) GROUP BY batch_id, outcome`,
        running,
      );
      for (const g of grouped) {
        const entry = counts.get(g.batch_id) ?? { completed: 0, failed: 0 };
        if (g.outcome === 'output') entry.completed = Number(g.n);
        else entry.failed = Number(g.n);
        counts.set(g.batch_id, entry);
      }
    }
    return rows.map((row) => toRecord(row, counts.get(row.id) ?? { completed: 0, failed: 0 }));
  }
}

function jsonlFile(batch: BatchRow, kind: 'output' | 'error', lines: string[]): { organisationId: string; purpose: 'batch_output'; filename: string; content: Buffer } {
  return { organisationId: batch.organisation_id, purpose: 'batch_output', filename: `${batch.id}_${kind}.jsonl`, content: Buffer.from(`${lines.join('\n')}\n`) };
}

function num(value: Num): number | null {
  return value === null ? null : Number(value);
}

function toRecord(row: BatchRow, live: { completed: number; failed: number } | null): BatchRecord {
  return {
    id: row.id,
    organisationId: row.organisation_id,
    endpoint: row.endpoint,
    inputFileId: row.input_file_id,
    contentFileId: row.content_file_id,
    completionWindow: row.completion_window,
    status: row.status as BatchStatus,
    createdAt: Number(row.created_at),
    createdIso: row.created_iso,
    inProgressAt: num(row.in_progress_at),
    expiresAt: num(row.expires_at),
    finalizingAt: num(row.finalizing_at),
    completedAt: num(row.completed_at),
    failedAt: num(row.failed_at),
    expiredAt: num(row.expired_at),
    cancellingAt: num(row.cancelling_at),
    cancelledAt: num(row.cancelled_at),
    outputFileId: row.output_file_id,
    errorFileId: row.error_file_id,
    requestCounts: {
      total: Number(row.total ?? 0),
      completed: row.completed !== null ? Number(row.completed) : (live?.completed ?? 0),
      failed: row.failed !== null ? Number(row.failed) : (live?.failed ?? 0),
    },
    metadata: row.metadata === null ? null : (parseJson(row.metadata) as Record<string, string>),
    errors: row.errors === null ? null : (parseJson(row.errors) as BatchLineError[]),
    route: row.route,
    leaseOwner: row.lease_owner,
    leaseExpiresMs: num(row.lease_expires_ms),
  };
}
