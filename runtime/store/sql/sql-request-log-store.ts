// RequestLogStore on any SqlDatabase. A batch is one multi-row INSERT per chunk, in one transaction;
// metadata filters use each dialect's JSON operator (the one place the SQL differs).
import { type RecordBatch, recordReader, type SharedRecords } from '../../core/record-batch.ts';
import { idPrefixAt, type RequestRecord } from '../../core/request-record.ts';
import type { RequestLogFilter, RequestLogPage, RequestLogStore } from '../request-log-store.ts';
import type { SqlDatabase, SqlValue } from './sql-database.ts';
import { LOG_COLUMNS, type LogRow, pushRowValues, recordOf } from './log-row.ts';

/**
 * Rows per INSERT at most: 13 parameters each stays far below both dialects' parameter limits. A power
 * of two, like every smaller INSERT (chunkRows), so the SQLite writer prepares at most eight shapes.
 */
export const ROWS_PER_INSERT = 128;

const SELECTED = LOG_COLUMNS.join(', ');
const ROW = `(${LOG_COLUMNS.map(() => '?').join(', ')})`;
const INSERTS = new Map<number, string>();

/**
 * Rows in the next INSERT: a full chunk, else the largest power of two that fits (100 rows go as 64,
 * 32 and 4). node:sqlite keeps every statement it prepared, and an INSERT of n rows holds ~1 KB per
 * row: one shape per remainder of a flush (1 to 199 rows) held ~21 MB once they had all occurred.
 */
export function chunkRows(remaining: number): number {
  return remaining >= ROWS_PER_INSERT ? ROWS_PER_INSERT : 2 ** (31 - Math.clz32(remaining));
}

/** The INSERT of `rows` rows (a chunkRows size), made once per size. */
function insertSql(rows: number): string {
  let sql = INSERTS.get(rows);
  if (sql === undefined) {
    sql = `INSERT INTO request_logs (${LOG_COLUMNS.join(', ')}) VALUES ${Array.from({ length: rows }, () => ROW).join(', ')} ON CONFLICT (id) DO NOTHING`;
    INSERTS.set(rows, sql);
  }
  return sql;
}

export class SqlRequestLogStore implements RequestLogStore {
  readonly #db: SqlDatabase;

  constructor(db: SqlDatabase) {
    this.#db = db;
  }

  /** The columns come from each record's own text, so the row and its `record` never disagree. */
  insert(batch: RecordBatch): Promise<void> {
    return this.insertShared(batch.shared());
  }

  /**
   * A batch's records where they are in shared memory: the SQLite writer's way in (in its thread, or
   * a slice at a time on the serving thread). They are decoded and parsed a chunk of rows at a time:
   * the whole batch first kept ~1 MB of it alive across the transaction, longer than the writer
   * thread's small young generation holds it.
   */
  async insertShared(shared: SharedRecords): Promise<void> {
    const count = shared.ends.length;
    if (count === 0) return;
    const textAt = recordReader(shared);
    await this.#db.transaction(async (tx) => {
      for (let start = 0; start < count; ) {
        const end = start + chunkRows(count - start);
        const params: SqlValue[] = [];
        for (let i = start; i < end; i++) pushRowValues(params, textAt(i));
        // A record written twice (a flush retried after a lost acknowledgement) is the same record.
        await tx.run(insertSql(end - start), params);
        start = end;
      }
    });
  }

  async list(filter: RequestLogFilter, page: { after?: string; limit: number }): Promise<RequestLogPage> {
    const { where, params } = this.#where(filter);
    if (page.after !== undefined) {
      where.push('id < ?');
      params.push(page.after);
    }
    const sql = `SELECT ${SELECTED} FROM request_logs${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
    const rows = await this.#db.all<LogRow>(sql, [...params, page.limit + 1]);
    const hasMore = rows.length > page.limit;
    return { records: rows.slice(0, page.limit).map(recordOf), hasMore };
  }

  async get(id: string, visibleTo?: string): Promise<RequestRecord | null> {
    const { where, params } = this.#where({ visibleTo });
    where.push('id = ?');
    const row = await this.#db.get<LogRow>(`SELECT ${SELECTED} FROM request_logs WHERE ${where.join(' AND ')}`, [...params, id]);
    return row === undefined ? null : recordOf(row);
  }

  async deleteOlderThan(ms: number, batch: number): Promise<number> {
    // Bounded, so retention on a large table never holds the write lock for long.
    return this.#db.run('DELETE FROM request_logs WHERE id IN (SELECT id FROM request_logs WHERE id < ? ORDER BY id LIMIT ?)', [idPrefixAt(ms), batch]);
  }

  #where(filter: RequestLogFilter): { where: string[]; params: SqlValue[] } {
    const where: string[] = [];
    const params: SqlValue[] = [];
    const equal = (column: string, value: string | undefined): void => {
      if (value === undefined) return;
      where.push(`${column} = ?`);
      params.push(value);
    };
    equal('trace_id', filter.traceId);
    equal('provider', filter.provider);
    equal('config_id', filter.configId);
    equal('api_key_id', filter.apiKeyId);
    equal('cache_status', filter.cacheStatus);
    if (filter.model !== undefined) {
      where.push('(model_requested = ? OR model_answered = ?)');
      params.push(filter.model, filter.model);
    }
    if (filter.status !== undefined) {
      where.push('status BETWEEN ? AND ?');
      params.push(filter.status.min, filter.status.max);
    }
    // Ids begin with their creation time: a time range is a range of the primary key.
    if (filter.fromMs !== undefined) {
      where.push('id >= ?');
      params.push(idPrefixAt(filter.fromMs));
    }
    if (filter.toMs !== undefined) {
      where.push('id < ?');
      params.push(idPrefixAt(filter.toMs + 1));
    }
    if (filter.visibleTo !== undefined) {
      where.push('(organisation_id = ? OR organisation_id IS NULL)');
      params.push(filter.visibleTo);
    }
    for (const [key, value] of Object.entries(filter.metadata ?? {})) {
      if (this.#db.dialect === 'postgres') {
        where.push('(metadata::jsonb ->> ?) = ?');
        params.push(key, value);
      } else {
        where.push('json_extract(metadata, ?) = ?');
        params.push(`$.${JSON.stringify(key)}`, value);
      }
    }
    return { where, params };
  }
}
