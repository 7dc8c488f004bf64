// Runs gateway-managed batches (docs/jobs.md). A process runs a batch while it holds the batch's
// lease, renewed as it goes; a batch whose lease ran out (its process died or stalled) is taken
// over by whichever process polls next, a restarted one included. Each line goes through the same
// router as a live request, a bounded number at a time, and its result is recorded once (the line's
// primary key), so whatever runs twice after a takeover lands once in the output or error file.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ConfigResolver } from '../inference/config-resolver.ts';
import { resolveRouter } from '../inference/handlers.ts';
import type { Outcome } from '../router/outcome.ts';
import { GatewayError } from '../core/errors.ts';
import { describeError, type GatewayLogger } from '../core/log.ts';
import { Outage } from '../core/outage.ts';
import type { RouteSpec } from '../server/match.ts';
import type { BatchLineError, BatchRecord, BatchStatus, BatchStore, LineResult } from '../store/batch-store.ts';
import type { GatewayFileStore } from '../store/file-store.ts';
import { type BatchLine, type BatchResponse, outputLine, parseBatchFile } from './batch-lines.ts';
import { detachedExchange, routeForEndpoint } from './detached-context.ts';
import { newRequestRecord, newTraceId, type RequestRecord } from '../core/request-record.ts';
import type { RouteSealer } from './route-headers.ts';
import type { Caller } from '../pipeline/exchange.ts';
import { RETRY_AFTER_MS_HEADER } from '../core/retry-after-headers.ts';
import type { JobSettings } from './settings.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';

export interface BatchRunnerDeps {
  batches: BatchStore;
  files: GatewayFileStore;
  resolver: ConfigResolver;
  routes: readonly RouteSpec[];
  sealer: RouteSealer;
  logger: GatewayLogger;
  settings: Pick<JobSettings, 'batchConcurrency' | 'maxRunningBatches' | 'batchLeaseMs' | 'batchPollMs'>;
  /** Epoch milliseconds (tests move time on to expire batches). */
  now?: () => number;
  /** The lease owner name; unique per process by default. */
  owner?: string;
  /** Told of each line's finished log record, as the server is of a live request's. */
  onRecord?: (record: RequestRecord) => void;
}

interface Running {
  cancel: boolean;
  /** The lease went to another process: start nothing more, settle nothing. */
  lost: boolean;
  /** Asks the lease renewal to run now (another process may have cancelled the batch). */
  poke(): void;
  done: Promise<void>;
}

/** Why a batch stopped taking new lines. */
type Stop = 'none' | 'cancel' | 'expired' | 'lost' | 'shutdown';

export class BatchRunner {
  readonly owner: string;
  readonly #deps: BatchRunnerDeps;
  readonly #now: () => number;
  readonly #running = new Map<string, Running>();
  readonly #shutdown = new AbortController();
  readonly #scans: Outage;
  #timer: NodeJS.Timeout | null = null;
  #scanning: Promise<void> | null = null;

  constructor(deps: BatchRunnerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#scans = new Outage(deps.logger, 'batch_scan_failed', 'batch_scan_recovered', 'error');
    this.owner = deps.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  }

  /** Looks for batches to run now and every poll interval. */
  start(): void {
    if (this.#timer !== null || this.#shutdown.signal.aborted) return;
    this.#timer = setInterval(() => this.scan(), this.#deps.settings.batchPollMs);
    this.#timer.unref();
    this.scan();
  }

  /** Claims batches with work left whose lease is free or expired, up to this process's capacity. */
  scan(): Promise<void> {
    if (this.#scanning !== null || this.#shutdown.signal.aborted) return this.#scanning ?? Promise.resolve();
    this.#scanning = (async () => {
      try {
        const room = this.#deps.settings.maxRunningBatches - this.#running.size;
        if (room <= 0) return;
        const claimable = await this.#deps.batches.claimable(this.#now(), room + this.#running.size);
        this.#scans.recovered();
        for (const id of claimable) {
          if (this.#running.size >= this.#deps.settings.maxRunningBatches) break;
          if (!this.#running.has(id)) this.run(id);
        }
      } catch (error) {
        if (!this.#shutdown.signal.aborted) this.#scans.failed(() => ({ error: describeError(error) }));
      } finally {
        this.#scanning = null;
      }
    })();
    return this.#scanning;
  }

  /** Runs a batch in this process if its lease can be had (a batch just created holds ours). */
  run(id: string): void {
    if (this.#running.has(id) || this.#shutdown.signal.aborted) return;
    let poke: () => void = () => undefined;
    const entry: Running = { cancel: false, lost: false, poke: () => poke(), done: Promise.resolve() };
    this.#running.set(id, entry);
    entry.done = this.#runBatch(id, entry, (fn) => (poke = fn))
      .catch((error: unknown) => {
        if (!this.#shutdown.signal.aborted) this.#deps.logger.error('batch_run_failed', { batch_id: id, error: describeError(error) });
      })
      .finally(() => this.#running.delete(id));
  }

  /** A cancel was accepted for this batch (by this process or, through the change feed, another). */
  cancelRequested(id: string): void {
    const entry = this.#running.get(id);
    if (entry !== undefined) {
      entry.cancel = true;
      entry.poke();
    }
  }

  /** Something about these batches changed in the store: re-read the ones running here. */
  changed(ids: readonly string[]): void {
    for (const id of ids) this.#running.get(id)?.poke();
  }

  get runningIds(): string[] {
    return [...this.#running.keys()];
  }

  /** Waits until no batch runs in this process (tests). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running.values()].map((r) => r.done));
  }

  /**
   * Stops taking work: lines in flight are abandoned (their upstream calls aborted, nothing recorded)
   * and leases are released, so another process or a restart resumes at once.
   */
  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#shutdown.abort(new DOMException('The gateway is shutting down.', 'AbortError'));
    await Promise.all([...this.#running.values()].map((r) => r.done));
    await this.#scanning;
  }

  async #runBatch(id: string, entry: Running, setPoke: (poke: () => void) => void): Promise<void> {
    const { batches } = this.#deps;
    const claimed = await batches.claim(id, this.owner, this.#now(), this.#deps.settings.batchLeaseMs);
    if (claimed === null) return;
    if (claimed.status === 'cancelling') entry.cancel = true;
    const renew = async (): Promise<void> => {
      // A failed renewal (the database is briefly away) changes nothing; the next one decides.
      const current: BatchStatus | null | undefined = await batches.renew(id, this.owner, this.#now(), this.#deps.settings.batchLeaseMs).catch(() => undefined);
      if (current === null) entry.lost = true;
      else if (current === 'cancelling') entry.cancel = true;
    };
    let renewing: Promise<void> | null = null;
    const renewNow = (): void => {
      renewing ??= renew().finally(() => (renewing = null));
    };
    setPoke(renewNow);
    const timer = setInterval(renewNow, Math.max(10, Math.floor(this.#deps.settings.batchLeaseMs / 3)));
    timer.unref();
    try {
      await this.#advance(claimed, entry);
    } finally {
      clearInterval(timer);
      await renewing;
      if (this.#shutdown.signal.aborted) await batches.release(id, this.owner).catch(() => undefined);
    }
  }

  /** Takes the batch from wherever it stands to a final status. */
  async #advance(batch: BatchRecord, entry: Running): Promise<void> {
    const { batches } = this.#deps;
    const owner = this.owner;
    const nowS = (): number => Math.floor(this.#now() / 1000);
    const settled = (record: BatchRecord | null): void => {
      if (record === null) return;
      const { total, completed, failed } = record.requestCounts;
      this.#deps.logger.info('batch_settled', { batch_id: record.id, status: record.status, total, completed, failed, errors: record.errors?.length ?? 0 });
    };
    if (batch.status === 'finalizing') {
      settled(await batches.settle(batch.id, owner, 'completed', nowS()));
      return;
    }
    const content = await this.#deps.files.content(batch.organisationId, batch.contentFileId);
    if (content === null) {
      settled(await batches.fail(batch.id, owner, [{ code: 'input_file_missing', message: `The input file ${batch.inputFileId} no longer exists.`, param: 'input_file_id', line: null }], nowS()));
      return;
    }
    const parsed = await parseBatchFile(content, batch.endpoint);
    if (parsed.errors.length > 0) {
      settled(await batches.fail(batch.id, owner, parsed.errors, nowS()));
      return;
    }
    const lines = parsed.lines;
    if (batch.status === 'validating' || batch.status === 'cancelling') {
      const started = await batches.startRunning(batch.id, owner, lines.length, nowS());
      if (started === null) return;
      batch = started;
    }
    if (batch.status === 'cancelling') entry.cancel = true;

    const stop = await this.#runLines(batch, lines, entry);
    if (stop === 'lost' || stop === 'shutdown') return;
    if (stop === 'cancel' || stop === 'expired') {
      await this.#fillMissing(batch, lines, stop);
      settled(await batches.settle(batch.id, owner, stop === 'cancel' ? 'cancelled' : 'expired', nowS()));
      return;
    }
    // Every line has its result. A cancel that lands now still wins: the batch settles as cancelled.
    if ((await batches.markFinalizing(batch.id, owner, nowS())) === null) {
      const current = await batches.load(batch.id);
      if (current?.status === 'cancelling' && current.leaseOwner === owner) settled(await batches.settle(batch.id, owner, 'cancelled', nowS()));
      return;
    }
    settled(await batches.settle(batch.id, owner, 'completed', nowS()));
  }

  /** Runs the lines without a result, `batchConcurrency` at a time, until done or told to stop. */
  async #runLines(batch: BatchRecord, lines: BatchLine[], entry: Running): Promise<Stop> {
    const done = await this.#deps.batches.doneLines(batch.id);
    const pending = lines.filter((line) => !done.has(line.index));
    const route = routeForEndpoint(this.#deps.routes, batch.endpoint);
    const { headers, caller } = this.#deps.sealer.open(batch.id, batch.route);
    const stopReason = (): Stop => {
      if (this.#shutdown.signal.aborted) return 'shutdown';
      if (entry.lost) return 'lost';
      if (entry.cancel) return 'cancel';
      if (batch.expiresAt !== null && this.#now() >= batch.expiresAt * 1000) return 'expired';
      return 'none';
    };
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < pending.length) {
        if (stopReason() !== 'none') return;
        const line = pending[next++];
        let result = await this.#runLine(batch, line, route, headers, caller);
        // A line refused by a rate limit waits for its Retry-After and runs again, within the batch's
        // window: a batch is the traffic that can wait. (A spent usage limit does not come back by
        // waiting: that line fails like any error.)
        while (result !== null && 'retryAfterMs' in result) {
          if (!(await this.#waitFor(result.retryAfterMs, stopReason))) return;
          result = await this.#runLine(batch, line, route, headers, caller);
        }
        // A line cut short by shutdown stays without a result: it runs again on resume.
        if (result === null || this.#shutdown.signal.aborted) return;
        await this.#deps.batches.recordResult(batch.id, result);
      }
    };
    const workers = Math.min(this.#deps.settings.batchConcurrency, Math.max(1, pending.length));
    await Promise.all(Array.from({ length: workers }, worker));
    // The flags are sticky and expiry only comes closer, so this is also why the workers stopped.
    return stopReason();
  }

  /**
   * Waits `ms` (at least 100 ms, in slices so a cancel, an expiry or a shutdown cuts it short);
   * false when the batch stopped meanwhile.
   */
  async #waitFor(ms: number, stopReason: () => Stop): Promise<boolean> {
    const until = this.#now() + Math.max(100, ms);
    while (this.#now() < until) {
      if (stopReason() !== 'none') return false;
      await new Promise((resolve) => setTimeout(resolve, Math.min(RATE_LIMIT_POLL_MS, Math.max(1, until - this.#now()))));
    }
    return stopReason() === 'none';
  }

  /** One line through the router; null when it was abandoned (shutdown); the wait when a rate limit refused it. */
  async #runLine(batch: BatchRecord, line: BatchLine, route: RouteSpec, headers: Record<string, string>, caller: Caller | null): Promise<LineResult | RateLimited | null> {
    const record = newRequestRecord(newTraceId(), 'POST', route.path, 'batch');
    record.routeKind = 'inference';
    record.operationId = route.operationId;
    record.organisationId = batch.organisationId;
    if (caller !== null) {
      record.apiKeyId = caller.keyId;
      record.workspaceId = caller.workspaceId;
    }
    const result = await this.#routeLine(batch, line, route, headers, caller, record);
    if (result !== null) this.#finishRecord(record, result);
    return result;
  }

  /** The line's record is written like a live request's: its status is the line's answer status. */
  #finishRecord(record: RequestRecord, result: LineResult | RateLimited): void {
    const onRecord = this.#deps.onRecord;
    if (onRecord === undefined) return;
    if ('retryAfterMs' in result) {
      record.status = 429;
      record.errorCode = 'rate_limited';
    } else {
      // The gateway's own line, read for one member of its own naming: no key a client chose is read.
      const response = (JSON.parse(result.line) as { response?: { status_code?: number } | null }).response;
      record.status = typeof response?.status_code === 'number' ? response.status_code : 500;
    }
    record.latencyMs = Date.now() - record.createdAt;
    const write = (): void => {
      try {
        onRecord(record);
      } catch (error) {
        this.#deps.logger.error('request_record_failed', { trace_id: record.traceId, error: describeError(error) });
      }
    };
    if (record.settling === null) write();
    else void record.settling.then(() => {
      record.settling = null;
      write();
    });
  }

  async #routeLine(batch: BatchRecord, line: BatchLine, route: RouteSpec, headers: Record<string, string>, caller: Caller | null, record: RequestRecord): Promise<LineResult | RateLimited | null> {
    const signal = this.#shutdown.signal;
    let outcome: Outcome;
    try {
      const router = resolveRouter(headers, this.#deps.resolver);
      const x = detachedExchange({ source: 'batch', headers, route, body: line.body, router, record, caller, signal });
      outcome = await router.run(x);
    } catch (error) {
      if (signal.aborted) return null;
      if (error instanceof GatewayError) {
        record.errorCode = error.code;
        return errorResult(line, { status_code: error.status, request_id: requestId(undefined), body: error.toBody() });
      }
      this.#deps.logger.error('batch_line_failed', { batch_id: batch.id, custom_id: line.customId, error: describeError(error) });
      return { lineIndex: line.index, outcome: 'error', line: outputLine(line.customId, null, { code: 'internal_error', message: 'The gateway failed to run this request.' }) };
    }
    if (signal.aborted) {
      outcome.response?.discard();
      return null;
    }
    if (outcome.response === null) {
      const error = outcome.error ?? new GatewayError('internal_error');
      if (error.code === 'rate_limited') return { retryAfterMs: Number(outcome.headers?.[RETRY_AFTER_MS_HEADER] ?? 1000) };
      return errorResult(line, { status_code: error.status, request_id: requestId(undefined), body: error.toBody() });
    }
    let bytes: Buffer;
    try {
      bytes = await outcome.response.readAll();
    } catch (error) {
      if (signal.aborted) return null;
      const broken = new GatewayError('upstream_stream_broken', `The provider's answer broke off: ${(error as Error).message}`, null, { provider: outcome.provider });
      return errorResult(line, { status_code: broken.status, request_id: requestId(undefined), body: broken.toBody() });
    }
    const response: BatchResponse = { status_code: outcome.response.status, request_id: requestId(outcome.response.headers['x-request-id']), body: parseBody(bytes) };
    const ok = response.status_code >= 200 && response.status_code < 300;
    return { lineIndex: line.index, outcome: ok ? 'output' : 'error', line: outputLine(line.customId, response, null) };
  }

  /** Lines that never ran get an error result naming why (cancelled, expired), so every line is in a file. */
  async #fillMissing(batch: BatchRecord, lines: BatchLine[], why: 'cancel' | 'expired'): Promise<void> {
    const done = await this.#deps.batches.doneLines(batch.id);
    const error = why === 'cancel'
      ? { code: 'batch_cancelled', message: 'The batch was cancelled before this request ran.' }
      : { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' };
    for (const line of lines) {
      if (!done.has(line.index)) await this.#deps.batches.recordResult(batch.id, { lineIndex: line.index, outcome: 'error', line: outputLine(line.customId, null, error) });
    }
  }
}

/** A line a rate limit refused: run it again after this long. */
interface RateLimited {
  retryAfterMs: number;
}

/** How often a line waiting out a rate limit looks whether its batch was cancelled or expired. */
const RATE_LIMIT_POLL_MS = 1000;

function errorResult(line: BatchLine, response: BatchResponse): LineResult {
  return { lineIndex: line.index, outcome: 'error', line: outputLine(line.customId, response, null) };
}

function requestId(header: string | string[] | undefined): string {
  return typeof header === 'string' && header !== '' ? header : `req_${randomBytes(12).toString('hex')}`;
}

function parseBody(bytes: Buffer): unknown {
  const text = bytes.toString('utf8');
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}

/** The errors object of a failed batch, in the vendor's shape. */
export function batchErrorsWire(errors: BatchLineError[] | null): { object: 'list'; data: BatchLineError[] } | null {
  return errors === null ? null : { object: 'list', data: errors };
}
