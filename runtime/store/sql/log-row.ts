// A request-log row: the members GET /v1/logs filters on are columns, and the `record` column holds
// only the record's other members, so no value is stored twice (a plain route's row ~25% smaller,
// docs/decisions.md). Every record's JSON begins with its column members, through `metadata`, and
// then `method` (newRequestRecord's order), so the writer parses the short prefix only and stores
// the rest of the text as it is. Rows written before the split hold the whole record in `record`;
// they read back the same.
import type { RequestRecord } from '../../core/request-record.ts';
import type { SqlValue } from './sql-database.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';

/** The columns of a row, in the table's order. */
export const LOG_COLUMNS = ['id', 'trace_id', 'created_ms', 'status', 'provider', 'model_requested', 'model_answered', 'config_id', 'api_key_id', 'cache_status', 'organisation_id', 'metadata', 'record'] as const;

/** The record's members that are columns of their own, each once, and in newRequestRecord's order. */
type ColumnMembers = Pick<RequestRecord, 'id' | 'traceId' | 'createdAt' | 'status' | 'provider' | 'modelRequested' | 'modelAnswered' | 'configId' | 'apiKeyId' | 'cacheStatus' | 'organisationId' | 'metadata'>;
const COLUMN_MEMBERS: ReadonlySet<string> = new Set(['id', 'traceId', 'createdAt', 'status', 'provider', 'modelRequested', 'modelAnswered', 'configId', 'apiKeyId', 'cacheStatus', 'organisationId', 'metadata'] satisfies Array<keyof ColumnMembers>);

/** Where the rest begins: the first member after the columns. */
const REST_START = ',"method":';

/** A row as both dialects return it (PostgreSQL gives a BIGINT as a string). */
export interface LogRow {
  id: string;
  trace_id: string;
  created_ms: number | string;
  status: number;
  provider: string | null;
  model_requested: string | null;
  model_answered: string | null;
  config_id: string | null;
  api_key_id: string | null;
  cache_status: string | null;
  organisation_id: string | null;
  metadata: string;
  record: string;
}

/** Appends the values of LOG_COLUMNS for a record's JSON text to `params`. */
export function pushRowValues(params: SqlValue[], text: string): void {
  const { columns, rest } = splitRecord(text);
  params.push(
    columns.id, columns.traceId, columns.createdAt, columns.status, storableText(columns.provider), storableText(columns.modelRequested), storableText(columns.modelAnswered),
    storableText(columns.configId), columns.apiKeyId, columns.cacheStatus, columns.organisationId, metadataText(columns.metadata), rest,
  );
}

/**
 * The metadata column's JSON, with U+0000 or a lone surrogate half in a key or value (a client can
 * send `\u0000` or `\ud800` in x-gateway-metadata) replaced as in the text columns: PostgreSQL's
 * jsonb, which its metadata filter reads the column as, refuses either escape. JSON.stringify
 * escapes exactly those (a surrogate pair stays as it is), so its text shows when to clean.
 */
function metadataText(metadata: Record<string, string>): string {
  const text = JSON.stringify(metadata);
  if (!UNSTORABLE_ESCAPE.test(text)) return text;
  // fromEntries defines each key as its own (a `__proto__` key stays a key).
  return JSON.stringify(Object.fromEntries(Object.entries(metadata).map(([key, value]) => [storableText(key), storableText(value)])));
}

/** The JSON escapes of U+0000 and of a surrogate half (or such text after an escaped backslash: a needless, harmless clean). */
const UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f])/i;

/**
 * A column's text as the store can keep it: U+0000, which PostgreSQL's text cannot hold (a whole
 * batch of records was refused for one), and a lone surrogate half (not text: the driver's UTF-8
 * would replace it anyway, and jsonb refuses its escape) become U+FFFD. A client's model name or
 * metadata is the usual way one comes in; filters on these columns go through the same
 * replacement, so they still find the record.
 */
export function storableText<T extends string | null | undefined>(value: T): T {
  if (typeof value !== 'string' || (!value.includes('\u0000') && value.isWellFormed())) return value;
  return value.toWellFormed().replaceAll('\u0000', '\uFFFD') as T;
}

/**
 * A record's column members, and the JSON of all its other members. The cut is the first `,"method":`
 * whose prefix parses as an object holding exactly the column members. An earlier occurrence can
 * only be a metadata key (a string cannot hold an unescaped quote), and a prefix cut inside the
 * metadata object leaves it open, so it does not parse. A record in another order is parsed whole.
 */
export function splitRecord(text: string): { columns: ColumnMembers; rest: string } {
  for (let cut = text.indexOf(REST_START); cut !== -1; cut = text.indexOf(REST_START, cut + 1)) {
    let prefix: unknown;
    try {
      prefix = parseJson(`${text.slice(0, cut)}}`);
    } catch {
      continue;
    }
    if (holdsExactlyColumns(prefix)) return { columns: prefix, rest: `{${text.slice(cut + 1)}` };
    break;
  }
  const whole = parseJson(text) as Record<string, unknown>;
  const columns: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const key in whole) (COLUMN_MEMBERS.has(key) ? columns : rest)[key] = whole[key];
  return { columns: columns as unknown as ColumnMembers, rest: JSON.stringify(rest) };
}

function holdsExactlyColumns(value: unknown): value is ColumnMembers {
  if (value === null || typeof value !== 'object') return false;
  let count = 0;
  for (const key in value) {
    if (!COLUMN_MEMBERS.has(key)) return false;
    count++;
  }
  return count === COLUMN_MEMBERS.size;
}

/** The whole record of a row, split or written before the split. */
export function recordOf(row: LogRow): RequestRecord {
  return {
    id: row.id,
    traceId: row.trace_id,
    createdAt: Number(row.created_ms),
    status: Number(row.status),
    provider: row.provider,
    modelRequested: row.model_requested,
    modelAnswered: row.model_answered,
    configId: row.config_id,
    apiKeyId: row.api_key_id,
    cacheStatus: row.cache_status as RequestRecord['cacheStatus'],
    organisationId: row.organisation_id,
    metadata: parseJson(row.metadata) as RequestRecord['metadata'],
    ...(parseJson(row.record) as Omit<RequestRecord, keyof ColumnMembers>),
  };
}
