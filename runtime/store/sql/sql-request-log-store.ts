// RequestLogStore on any SqlDatabase. A batch is one multi-row INSERT per chunk, in one transaction;
// metadata filters use each dialect's JSON operator (the one place the SQL differs).
import { type RecordBatch, recordReader, type SharedRecords } from '../../core/record-batch.ts';
import { idPrefixAt, type RequestRecord } from '../../core/request-record.ts';
import type { RequestLogFilter, RequestLogPage, RequestLogStore } from '../request-log-store.ts';
import { marks } from './clauses.ts';
import type { SqlDatabase, SqlValue } from './sql-database.ts';
import { LOG_COLUMNS, type LogRow, pushRowValues, recordOf, storableText } from './log-row.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Rows per INSERT at most: 13 parameters each stays far below both dialects' parameter limits. A power
 * of two, like every smaller INSERT (chunkRows), so the SQLite writer prepares at most eight shapes.
 */
export const ROWS_PER_INSERT = 128;

const SELECTED = LOG_COLUMNS.join(', ');
const ROW = `(${marks(LOG_COLUMNS.length)})`;
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

/**
 * How a filtered page looks through the log. Only the trace id has an index (each index costs every
 * insert), so a filter on anything else reads rows until it has a page. On SQLite those reads run on
 * the serving thread: a filter that matched nothing in a million rows held it for ~0.5 s. A page now
 * reads at most `chunkRows` rows at a time, newest first, with a turn of the event loop between
 * chunks, and stops after `maxRows`, ending early (fewer records, `hasMore`, and `next` where it
 * stopped).
 */
export interface LogScan {
  chunkRows: number;
  maxRows: number;
}

/** ~5 ms of SQLite reads per chunk on the 2-core VM; ~50 ms for a whole page at most. */
export const DEFAULT_LOG_SCAN: LogScan = { chunkRows: 10_000, maxRows: 100_000 };

export class SqlRequestLogStore implements RequestLogStore {
  readonly #db: SqlDatabase;
  readonly #scan: LogScan;

  constructor(db: SqlDatabase, scan: LogScan = DEFAULT_LOG_SCAN) {
    this.#db = db;
    this.#scan = scan;
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
    let cursor = page.after ?? null;
    // The trace id's index finds its rows at once; with nothing but a time range every row matches.
    if (filter.traceId !== undefined || where.length === 0) return this.#page(await this.#rows(filter, cursor, null, where, params, page.limit + 1), page.limit, false);
    const found: LogRow[] = [];
    // Small chunks first (a filter most rows match fills its page in the first), growing fourfold.
    let chunk = Math.min(this.#scan.chunkRows, Math.max(256, 4 * (page.limit + 1)));
    for (let scanned = 0; ; ) {
      // The oldest id of the chunk (none: fewer rows than a chunk are left), then its matches.
      const range = idRange(filter, cursor, null);
      const floor = await this.#db.get<{ id: string }>(`SELECT id FROM request_logs${clause(range.where)} ORDER BY id DESC LIMIT 1 OFFSET ${chunk - 1}`, range.params);
      found.push(...(await this.#rows(filter, cursor, floor?.id ?? null, where, params, page.limit + 1 - found.length)));
      if (found.length > page.limit || floor === undefined) return this.#page(found, page.limit, false);
      scanned += chunk;
      if (scanned >= this.#scan.maxRows) {
        return found.length === page.limit ? this.#page(found, page.limit, true) : { records: found.map(recordOf), hasMore: true, next: floor.id };
      }
      cursor = floor.id;
      chunk = Math.min(this.#scan.chunkRows, chunk * 4, this.#scan.maxRows - scanned);
      await nextTurn();
    }
  }

  /** Up to `limit` rows below `cursor` (and from `floor` on, inclusive) in the filter's time range that match `where`, newest first. */
  #rows(filter: RequestLogFilter, cursor: string | null, floor: string | null, where: string[], params: SqlValue[], limit: number): Promise<LogRow[]> {
    const range = idRange(filter, cursor, floor);
    return this.#db.all<LogRow>(`SELECT ${SELECTED} FROM request_logs${clause([...range.where, ...where])} ORDER BY id DESC LIMIT ?`, [...range.params, ...params, limit]);
  }

  /** The first `limit` rows as a page; more when there was one row beyond them, or `maybeMore`. */
  #page(rows: LogRow[], limit: number, maybeMore: boolean): RequestLogPage {
    const records = rows.slice(0, limit).map(recordOf);
    const hasMore = rows.length > limit || (maybeMore && records.length > 0);
    return { records, hasMore, next: hasMore ? records[records.length - 1]!.id : null };
  }

  async get(id: string, visibleTo?: string): Promise<RequestRecord | null> {
    const { where, params } = this.#where({ visibleTo });
    where.push('id = ?');
    const row = await this.#db.get<LogRow>(`SELECT ${SELECTED} FROM request_logs WHERE ${where.join(' AND ')}`, [...params, storableText(id)]);
    return row === undefined ? null : recordOf(row);
  }

  async deleteOlderThan(ms: number, batch: number): Promise<number> {
    // Bounded, so retention on a large table never holds the write lock for long.
    return this.#db.run('DELETE FROM request_logs WHERE id IN (SELECT id FROM request_logs WHERE id < ? ORDER BY id LIMIT ?)', [idPrefixAt(ms), batch]);
  }

  /** The filter's conditions on anything but the id (the id range is idRange's). */
  #where(filter: RequestLogFilter): { where: string[]; params: SqlValue[] } {
    const where: string[] = [];
    const params: SqlValue[] = [];
    // Every value as the columns keep it (storableText): a filter that holds U+0000 finds what was stored for it.
    const equal = (column: string, value: string | undefined): void => {
      if (value === undefined) return;
      where.push(`${column} = ?`);
      params.push(storableText(value));
    };
    equal('trace_id', filter.traceId);
    equal('provider', filter.provider);
    equal('config_id', filter.configId);
    equal('api_key_id', filter.apiKeyId);
    equal('cache_status', filter.cacheStatus);
    if (filter.model !== undefined) {
      where.push('(model_requested = ? OR model_answered = ?)');
      params.push(storableText(filter.model), storableText(filter.model));
    }
    if (filter.status !== undefined) {
      where.push('status BETWEEN ? AND ?');
      params.push(filter.status.min, filter.status.max);
    }
    if (filter.visibleTo !== undefined) {
      where.push('(organisation_id = ? OR organisation_id IS NULL)');
      params.push(filter.visibleTo);
    }
    for (const [key, value] of Object.entries(filter.metadata ?? {})) {
      if (this.#db.dialect === 'postgres') {
        // jsonb refuses the escapes of U+0000 and of a lone surrogate half, so one row written with
        // one (before the writer replaced them) would fail every metadata filter that reaches it:
        // they are replaced in the text first. JSON.stringify escapes a surrogate only when it is
        // alone; an escaped backslash before such text stays valid JSON after the replacement too.
        where.push(`(regexp_replace(metadata, '${ESCAPES_JSONB_REFUSES}', '\uFFFD', 'g')::jsonb ->> ?) = ?`);
        params.push(storableText(key), storableText(value));
      } else {
        where.push('json_extract(metadata, ?) = ?');
        params.push(`$.${JSON.stringify(key)}`, storableText(value));
      }
    }
    return { where, params };
  }
}

/**
 * A PostgreSQL regular expression (in a standard SQL string, where a backslash is itself) for the
 * JSON escapes of U+0000 and of a surrogate half, which jsonb refuses; replaced by U+FFFD itself.
 */
const ESCAPES_JSONB_REFUSES = String.raw`\\u(0000|[dD][89abAB][0-9a-fA-F]{2})`;

/**
 * Conditions on the id: below `cursor`, from `floor` on, and the filter's time range (ids begin with
 * their creation time, so a time range is a range of the primary key).
 */
function idRange(filter: RequestLogFilter, cursor: string | null, floor: string | null): { where: string[]; params: SqlValue[] } {
  const where: string[] = [];
  const params: SqlValue[] = [];
  const bound = (condition: string, value: string | null): void => {
    if (value === null) return;
    where.push(condition);
    params.push(value);
  };
  bound('id < ?', cursor);
  bound('id >= ?', floor);
  bound('id >= ?', filter.fromMs === undefined ? null : idPrefixAt(filter.fromMs));
  bound('id < ?', filter.toMs === undefined ? null : idPrefixAt(filter.toMs + 1));
  return { where, params };
}

function clause(conditions: readonly string[]): string {
  return conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
}
