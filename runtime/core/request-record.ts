// The request log record (ARCHITECTURE §5 "Request log"): one per request that reached the server,
// errors and 401s included. Built when the request arrives, filled by the server and the pipeline's
// stages, and written in batches once the response is finished. It never holds a secret.
import { randomBytes, randomUUID } from 'node:crypto';

/** What kind of request this was: the data plane, the pass-through, the control plane, or neither. */
export type RouteKind = 'inference' | 'passthrough' | 'control' | 'health' | 'metrics' | 'unmatched';

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache (priced lower), included in inputTokens. */
  cachedInputTokens: number;
  /**
   * Input tokens the provider wrote to its prompt cache (priced higher), included in inputTokens, and
   * of those the ones written for an hour; absent (none) in answers that do not say and in records
   * written before the gateway read them.
   */
  cacheCreationInputTokens?: number;
  cacheCreation1hInputTokens?: number;
  /**
   * Audio tokens among the input and among the output (an audio model's chat: spoken input, a spoken
   * answer), priced apart from text; absent (none) likewise.
   */
  audioInputTokens?: number;
  audioOutputTokens?: number;
  /**
   * Of the cached input, audio tokens, where the answer counts them apart (a realtime session's
   * responses): priced at the model's cached audio price where it has one; absent (none) likewise.
   */
  cachedAudioInputTokens?: number;
  /** Image tokens among the input (an image model's input images), priced apart from text; absent (none) likewise. */
  imageInputTokens?: number;
  /**
   * Seconds of audio a transcription is billed by, its tokens 0: as whisper's answer reports them, or
   * read from the upload when the answer reports nothing (estimated); absent otherwise.
   */
  audioSeconds?: number;
  /**
   * Images asked for of a model billed per image (DALL·E), with the size and quality asked for (null:
   * the request named none, the model's default), counted from the request as sent when the answer
   * reported no tokens; absent otherwise.
   */
  images?: number;
  imageSize?: string | null;
  imageQuality?: string | null;
  /** Characters a speech request answered as audio spoke (tts-1 is billed by them), counted from the request as sent; absent otherwise. */
  inputCharacters?: number;
  /** Seconds of speech answered as audio bytes, read from the answer, for a model priced by them; absent otherwise. */
  audioOutputSeconds?: number;
  totalTokens: number;
  /** True when the answer carried no usage and the numbers are the gateway's estimate. */
  estimated: boolean;
}

/** x-gateway-cache-status values (ARCHITECTURE §5 "Cache"), also the record's cache_status. */
export const CACHE_STATUS = {
  hit: 'HIT',
  miss: 'MISS',
  refresh: 'REFRESH',
  semanticHit: 'SEMANTIC HIT',
  semanticMiss: 'SEMANTIC MISS',
  /** An inference answer of a route (or endpoint) without a cache. */
  disabled: 'DISABLED',
} as const;

export type CacheStatus = (typeof CACHE_STATUS)[keyof typeof CACHE_STATUS];

/**
 * The most of a model name a record keeps (UTF-16 code units). The name comes from the client's body
 * or the provider's answer, unbounded; it becomes a log column, a metric label and a span attribute,
 * so a longer one is kept as its start and an ellipsis. The request itself is sent unchanged.
 */
const MAX_RECORDED_MODEL_LENGTH = 256;

/** `name` as a record keeps it: at most MAX_RECORDED_MODEL_LENGTH code units, never half a surrogate pair. */
export function recordedModel(name: string): string {
  return shortened(name, MAX_RECORDED_MODEL_LENGTH);
}

/**
 * Characters of a request's path a record keeps. The path is recorded for every request, 401s and
 * 404s before any key is checked, and a client chose it: a 60 KB path (the header limit allows it)
 * made each unauthenticated request a 60 KB record, ~50 MB of log a second from one client. Real
 * paths are ~100 characters.
 */
export const MAX_RECORDED_PATH_LENGTH = 2048;

/** `text` whole, or its start and an ellipsis in `max` code units, never half a surrogate pair. */
function shortened(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}\u2026`;
}

/** Whether the answer came from the cache, not from a provider (zero provider cost, nothing to charge). */
export function isCacheHit(status: string | null): boolean {
  return status === CACHE_STATUS.hit || status === CACHE_STATUS.semanticHit;
}

/** One hook's result, as returned in `hook_results` and logged. */
export interface HookResult {
  id: string;
  /** The hook's `type` label from the config; null when it has none (guardrails have none). */
  type: string | null;
  verdict: boolean;
  deny: boolean;
  async: boolean;
  checks: Array<{ id: string; verdict: boolean; explanation: string | null; error: string | null; executionTimeMs: number }>;
  executionTimeMs: number;
}

export interface RequestRecord {
  /** Sortable id (time first), also the cursor of `GET /v1/logs`. */
  id: string;
  traceId: string;
  /** Unix milliseconds when the request arrived. */
  createdAt: number;
  method: string;
  /** The path without the query string. */
  path: string;
  routeKind: RouteKind;
  /** The endpoint's operationId, when a route matched. */
  operationId: string | null;
  source: 'http' | 'batch' | 'responses';
  status: number;
  /** The gateway error code when the gateway answered with its error body; null otherwise. */
  errorCode: string | null;
  latencyMs: number;
  /** Time to the first byte of the response body; null when none was sent. */
  ttfbMs: number | null;
  configId: string | null;
  /** Which target answered, e.g. `config.targets[1]`. */
  targetPath: string | null;
  provider: string | null;
  modelRequested: string | null;
  modelAnswered: string | null;
  retries: number;
  /** HIT, MISS, SEMANTIC HIT, SEMANTIC MISS, REFRESH, DISABLED; null where no cache applies (not inference). */
  cacheStatus: CacheStatus | null;
  stream: boolean;
  usage: TokenUsage | null;
  /** USD from the pricing table; null when the model is unknown (or nothing was used). */
  costUsd: number | null;
  /** USD a cache hit saved (what the provider call would have cost); null otherwise. */
  savedCostUsd: number | null;
  metadata: Readonly<Record<string, string>>;
  apiKeyId: string | null;
  workspaceId: string | null;
  organisationId: string | null;
  hookResults: { beforeRequestHooks: HookResult[]; afterRequestHooks: HookResult[] } | null;
  /** on_success / on_fail feedback of hooks (value, weight, metadata, passed/failed/errored checks). */
  feedback: unknown[] | null;
  /** Only with GATEWAY_LOG_BODIES=on: capped, credentials redacted. */
  requestBody: string | null;
  responseBody: string | null;
  /**
   * Work that still adds to the record after the answer was sent (async hooks): whoever writes the
   * record waits for it first. Null when there is none. Never rejects.
   */
  settling: Promise<void> | null;
}

/** Random bits fixed per process, so ids from several processes never collide; a counter after them. */
const PROCESS_BITS = randomBytes(6).toString('hex');
let sequence = 0;

/**
 * A time-ordered id in the UUID version 7 layout: 48 bits of milliseconds, then 24 bits of a
 * per-process counter and 48 random bits fixed per process (unique across processes with
 * overwhelming probability, without drawing randomness per request). Ids sort by creation time, so
 * they serve as a cursor.
 */
export function newRecordId(now = Date.now()): string {
  sequence = (sequence + 1) & 0xffffff;
  const count = sequence.toString(16).padStart(6, '0');
  return `${timePrefix(now)}-7${count.slice(0, 3)}-8${count.slice(3, 6)}-${PROCESS_BITS}`;
}

/**
 * A trace id for a request that came without one: a UUID version 7 (48 bits of milliseconds, then 74
 * random bits; RFC 9562), so generated trace ids arrive in about the order of time. The request log
 * indexes trace ids, and an index fed random keys rewrites a page for nearly every insert once it
 * outgrows the cache (on SQLite ~3× the CPU per record at a million rows); time-ordered keys append.
 */
export function newTraceId(now = Date.now()): string {
  // randomUUID's layout: xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx; its variant bits are already RFC 9562's.
  return `${timePrefix(now)}-7${randomUUID().slice(15)}`;
}

let prefixMs = -1;
let prefix = '';

/** `xxxxxxxx-xxxx` of the milliseconds `ms`: the first two groups of a version 7 id (made once per millisecond). */
function timePrefix(ms: number): string {
  if (ms !== prefixMs) {
    prefix = idPrefixAt(ms);
    prefixMs = ms;
  }
  return prefix;
}

/** The part of every id made at `ms` that comes before its counter: ids of earlier times sort below it, of `ms` and later above. */
export function idPrefixAt(ms: number): string {
  const time = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}`;
}

const NO_METADATA: Readonly<Record<string, string>> = Object.freeze({});

/**
 * A record for a request that just arrived; the server and the stages fill in the rest. Its members
 * come in this order in every record's JSON: the request log's own columns first, through
 * `metadata`, then the rest from `method` on (runtime/store/sql/log-row.ts stores only the rest as
 * the row's `record`).
 */
export function newRequestRecord(traceId: string, method: string, path: string, source: RequestRecord['source'] = 'http', createdAt = Date.now()): RequestRecord {
  return {
    id: newRecordId(createdAt),
    traceId,
    createdAt,
    status: 0,
    provider: null,
    modelRequested: null,
    modelAnswered: null,
    configId: null,
    apiKeyId: null,
    cacheStatus: null,
    organisationId: null,
    metadata: NO_METADATA,
    method,
    path: shortened(path, MAX_RECORDED_PATH_LENGTH),
    routeKind: 'unmatched',
    operationId: null,
    source,
    errorCode: null,
    latencyMs: 0,
    ttfbMs: null,
    targetPath: null,
    retries: 0,
    stream: false,
    usage: null,
    costUsd: null,
    savedCostUsd: null,
    workspaceId: null,
    hookResults: null,
    feedback: null,
    requestBody: null,
    responseBody: null,
    settling: null,
  };
}
