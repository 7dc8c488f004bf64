// `gateway logs`: reads the request log from the store (the SQLite file under --data, or PostgreSQL
// when DATABASE_URL is set), filtered exactly as GET /v1/logs filters (the same query schema and the
// same filter), newest first; --follow prints new records as they are written, oldest first.
import { filterOf } from '../api/logs/handlers.ts';
import { requestLogWire } from '../api/logs/wire.ts';
import * as validators from '../../generated/validators.js';
import { GatewayError } from '../core/errors.ts';
import { CACHE_STATUS, type RequestRecord, type TokenUsage } from '../core/request-record.ts';
import { type GeneratedValidator, validateQuery } from '../core/validate.ts';
import { DEFAULT_DATA_DIR, openGatewayStore } from '../store/open-store.ts';
import type { RequestLogFilter, RequestLogStore } from '../store/request-log-store.ts';
import { StoreUnavailableError } from '../store/sql/sql-database.ts';
import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, reportUsageError, UsageError } from './args.ts';

const validateListQuery = validators.validateRequestLogListQuery as unknown as GeneratedValidator;
const FOLLOW_POLL_MS = 1000;

export const LOGS_USAGE = `Usage: gateway logs [filters] [--limit N] [--follow] [--json] [--data DIR]

Prints request log records, newest first (the filters of GET /v1/logs; every filter given must match).

Filters:
  --trace-id ID          x-gateway-trace-id
  --metadata KEY=VALUE   the record's metadata has VALUE under KEY (repeatable: all must match)
  --status S             a status (429) or a class (2xx, 4xx, 5xx)
  --provider P           the provider that answered (an alias finds its provider: openai, vendor)
  --model M              the requested or the answering model
  --config-id ID         the saved config (or inline:<hash>)
  --api-key-id ID        the gateway key's ID
  --cache-status S       HIT, MISS, SEMANTIC HIT, SEMANTIC MISS, REFRESH or DISABLED
  --from T, --to T       Unix seconds

Options:
  --limit N      records to print (1 to 1000, default 50)
  --follow, -f   keep printing new records as they are written (oldest first), until interrupted;
                 a store that stops answering meanwhile is waited for
  --json         one JSON object per line, as GET /v1/logs returns them
  --data DIR     data directory holding the embedded store (default ${DEFAULT_DATA_DIR})
  -h, --help     show this help

Environment:
  DATABASE_URL   PostgreSQL URL: read that store instead of the SQLite file under --data`;

const OPTIONS = {
  'trace-id': { type: 'string' },
  metadata: { type: 'string', multiple: true },
  status: { type: 'string' },
  provider: { type: 'string' },
  model: { type: 'string' },
  'config-id': { type: 'string' },
  'api-key-id': { type: 'string' },
  'cache-status': { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  limit: { type: 'string' },
  follow: { type: 'boolean', short: 'f' },
  json: { type: 'boolean' },
  data: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function runLogs(argv: string[]): Promise<number> {
  let query: Record<string, unknown>;
  let values;
  try {
    values = parseCommandArgs(argv, OPTIONS).values;
    if (values.help === true) {
      process.stdout.write(`${LOGS_USAGE}\n`);
      return EXIT_OK;
    }
    query = validated(values);
  } catch (err) {
    if (err instanceof UsageError) return reportUsageError('logs', err, LOGS_USAGE);
    throw err;
  }
  let store;
  try {
    store = await openGatewayStore({ dataDir: values.data ?? DEFAULT_DATA_DIR, databaseUrl: process.env.DATABASE_URL || null, existing: true });
  } catch (err) {
    process.stderr.write(`gateway logs: ${(err as Error).message}\n`);
    return EXIT_FAILURE;
  }
  try {
    const filter = filterOf(query);
    const limit = typeof query.limit === 'number' ? query.limit : 50;
    const records = await newest(store.requestLogs.list.bind(store.requestLogs), filter, typeof query.after === 'string' ? query.after : undefined, limit);
    const print = values.json === true ? printJson : printLine;
    if (values.follow !== true) {
      for (const record of records) print(record);
      return EXIT_OK;
    }
    // Newest last, then whatever arrives.
    for (const record of [...records].reverse()) print(record);
    await follow(store.requestLogs.list.bind(store.requestLogs), filter, records[0] ?? null, print);
    return EXIT_OK;
  } catch (err) {
    process.stderr.write(`gateway logs: ${(err as Error).message}\n`);
    return EXIT_FAILURE;
  } finally {
    await store.close();
  }
}

/** The flags as the API's query, checked by the API's own query schema. */
function validated(values: Record<string, unknown>): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  const names: Record<string, string> = { 'trace-id': 'trace_id', status: 'status', provider: 'provider', model: 'model', 'config-id': 'config_id', 'api-key-id': 'api_key_id', 'cache-status': 'cache_status', from: 'from', to: 'to', limit: 'limit' };
  for (const [flag, name] of Object.entries(names)) if (typeof values[flag] === 'string') query[name] = values[flag];
  for (const pair of (values.metadata as string[] | undefined) ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--metadata wants KEY=VALUE, not ${JSON.stringify(pair)}`);
    query[`metadata.${pair.slice(0, eq)}`] = pair.slice(eq + 1);
  }
  try {
    return validateQuery(validateListQuery, query);
  } catch (err) {
    if (err instanceof GatewayError) throw new UsageError(err.message.replace(/^Invalid query string: /, '').replace(/^\//, '--').replace(/_/g, '-'));
    throw err;
  }
}

type List = RequestLogStore['list'];

/** The newest `limit` matching records: pages that stopped at their scan bound with fewer are followed on. */
async function newest(list: List, filter: RequestLogFilter, after: string | undefined, limit: number): Promise<RequestRecord[]> {
  const records: RequestRecord[] = [];
  let next = after;
  for (;;) {
    const page = await list(filter, { after: next, limit: limit - records.length });
    records.push(...page.records);
    if (records.length >= limit || !page.hasMore || page.next === null) return records;
    next = page.next;
  }
}

async function follow(list: List, filter: RequestLogFilter, newestPrinted: RequestRecord | null, print: (record: RequestRecord) => void): Promise<void> {
  let stop = false;
  const interrupted = new Promise<void>((resolve) => {
    const done = (): void => {
      stop = true;
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  let last = newestPrinted?.id ?? null;
  // Only records from the last printed one's millisecond on are looked at (ids begin with their
  // creation time, so a poll reads what arrived since, not the whole log again); with none printed,
  // from a minute before the start, for requests that began earlier and finish while it follows.
  let since = newestPrinted?.createdAt ?? Date.now() - 60_000;
  // A store that stops answering (a database restart) is waited for, as `tail -f` waits for its file.
  let away = false;
  while (!stop) {
    const fresh: RequestRecord[] = [];
    // Newest first: page back until the last printed record.
    let after: string | undefined;
    try {
      for (;;) {
        const page = await list({ ...filter, fromMs: Math.max(filter.fromMs ?? 0, since) }, { after, limit: 500 });
        const unseen = page.records.filter((record) => last === null || record.id > last);
        fresh.push(...unseen);
        if (!page.hasMore || page.next === null || unseen.length < page.records.length) break;
        after = page.next;
      }
      if (away) process.stderr.write('gateway logs: the store answers again\n');
      away = false;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      if (!away) process.stderr.write(`gateway logs: ${error.message}; still following, until it answers again\n`);
      away = true;
      fresh.length = 0;
    }
    for (const record of fresh.reverse()) print(record);
    if (fresh.length > 0) {
      last = fresh[fresh.length - 1].id;
      since = fresh[fresh.length - 1].createdAt;
    }
    await Promise.race([interrupted, new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS))]);
  }
}

function printJson(record: RequestRecord): void {
  process.stdout.write(`${JSON.stringify(requestLogWire(record))}\n`);
}

function printLine(record: RequestRecord): void {
  const time = new Date(record.createdAt).toISOString();
  const usage = record.usage;
  const used = usage === null ? '- tok' : usedUnits(usage);
  const cost = record.costUsd === null ? '-' : `$${record.costUsd.toFixed(6)}`;
  const model = shown(record.modelAnswered ?? record.modelRequested ?? '-');
  // What the cache did, where a cache was consulted (HIT, MISS, SEMANTIC HIT, …); '-' otherwise.
  const cache = record.cacheStatus === null || record.cacheStatus === CACHE_STATUS.disabled ? '-' : record.cacheStatus;
  process.stdout.write(`${time}  ${record.status}  ${shown(record.method)} ${shown(record.path)}  ${record.provider ?? '-'}  ${model}  ${record.latencyMs.toFixed(1)} ms  ${used}  ${cost}  ${cache}  ${record.traceId}\n`);
}

/**
 * What a record used: tokens, or for what is billed otherwise its unit (a transcription billed by its
 * length, seconds of audio; DALL·E, images and their size; speech, characters spoken and, for a
 * model priced by the minute, seconds of speech), with the characters an embedding answer counted
 * beside its tokens.
 */
function usedUnits(usage: TokenUsage): string {
  if (usage.audioSeconds !== undefined) return `${usage.audioSeconds} s audio`;
  if (usage.images !== undefined) return `${usage.images} image${usage.images === 1 ? '' : 's'}${usage.imageSize == null ? '' : ` ${shown(usage.imageSize)}`}${usage.imageQuality == null ? '' : ` ${shown(usage.imageQuality)}`}`;
  if (usage.inputCharacters !== undefined && usage.inputTokens === 0) return `${usage.inputCharacters} chars${usage.audioOutputSeconds === undefined ? '' : `, ${usage.audioOutputSeconds} s speech`}`;
  const tokens = `${usage.inputTokens}+${usage.outputTokens}${usage.estimated ? '~' : ''} tok`;
  return usage.inputCharacters === undefined ? tokens : `${tokens}, ${usage.inputCharacters} chars`;
}

/**
 * A client's text (its body's model, its path) as a terminal line may show it: control characters,
 * which could move the cursor, retitle the window or start a new line that looks like a record, are
 * written as escapes.
 */
function shown(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
