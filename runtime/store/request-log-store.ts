// The request-log store contract (one implementation, sql/sql-request-log-store.ts, on SQLite and
// PostgreSQL). Records arrive in batches from the log writer, never one request at a time.
import type { RecordBatch } from '../core/record-batch.ts';
import type { RequestRecord } from '../core/request-record.ts';

export interface RequestLogFilter {
  traceId?: string;
  /** Inclusive status range: one code (429..429) or a class (400..499). */
  status?: { min: number; max: number };
  provider?: string;
  /** Matches the requested or the answering model. */
  model?: string;
  configId?: string;
  apiKeyId?: string;
  cacheStatus?: string;
  /** Unix milliseconds, inclusive. */
  fromMs?: number;
  toMs?: number;
  /** Every pair must be in the record's metadata. */
  metadata?: Readonly<Record<string, string>>;
  /** Records of this organisation and records of no organisation (unauthenticated requests). */
  visibleTo?: string;
}

export interface RequestLogPage {
  /** Newest first. */
  records: RequestRecord[];
  /** True when older records may match: the next page (which may be empty) starts at `next`. */
  hasMore: boolean;
  /**
   * Where the next page starts (pass it as `after`): the last record's id, or, when a page stopped
   * at its scan bound with fewer than `limit` records, the oldest id it looked at. Null without more.
   */
  next: string | null;
}

export interface RequestLogStore {
  /** Records as the log writer packs them (each `JSON.stringify` of a RequestRecord); the batch is not changed until this settles. */
  insert(batch: RecordBatch): Promise<void>;
  /** `after`: the id of the last record of the previous page (records older than it follow). */
  list(filter: RequestLogFilter, page: { after?: string; limit: number }): Promise<RequestLogPage>;
  get(id: string, visibleTo?: string): Promise<RequestRecord | null>;
  /** Deletes records created before `ms` (Unix milliseconds), at most `batch` of them; returns how many. */
  deleteOlderThan(ms: number, batch: number): Promise<number>;
}
