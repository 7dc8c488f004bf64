// Wires the request log into a started gateway: the writer consumes every finished record (live
// requests and batch lines), the logs API reads the store, and shutdown writes what is queued once
// the server has drained. Call it last in the setup, so its shutdown hook runs after the others.
import type { GatewaySetup } from '../../server/start.ts';
import type { Handler } from '../../server/server.ts';
import { DEFAULT_REQUEST_LOG_SETTINGS, RequestLog } from '../../telemetry/request-log.ts';
import { keepPending, takePending } from '../../store/pending-files.ts';
import { RecordBatch } from '../../core/record-batch.ts';
import type { RequestLogStore } from '../../store/request-log-store.ts';
import type { TelemetrySettings } from '../../telemetry/settings.ts';
import { logHandlers } from './handlers.ts';
import { KeylessRecordBudget } from '../../telemetry/keyless-records.ts';

export interface WiredRequestLog {
  log: RequestLog;
  /** What limits the records no key vouched for; its `dropped` is a metric. */
  keyless: KeylessRecordBudget;
}

export function setupRequestLog(setup: GatewaySetup, settings: TelemetrySettings, keyless = new KeylessRecordBudget()): WiredRequestLog | null {
  const handlers: Record<string, Handler> = logHandlers(setup.store.requestLogs);
  const served = new Set(setup.gateway.routes.routes.map((route) => route.handler));
  for (const [name, handler] of Object.entries(handlers)) if (served.has(name)) setup.gateway.registerHandler(name, handler);
  // What an earlier stop could not write (its store was away): off the start's path, and again when
  // the store answers after an outage (it may have been away at this start too).
  const restore = (): void => void takePending(setup.dataDir, 'request-log', (lines) => insertAll(setup.store.requestLogs, lines), setup.logger);
  const log = new RequestLog(setup.store.requestLogs, setup.logger, settings.log, undefined, { keep: (texts) => keepPending(setup.dataDir, 'request-log', texts, settings.logSpillMaxBytes), storeIsBack: restore });
  setup.onClose(() => log.close());
  restore();
  if (!settings.requestLog) {
    // Nothing new is written, but the records of earlier runs are still served: they still age out.
    log.startRetention();
    return null;
  }
  setup.onRecord((record) => {
    // A live request no key vouched for (a 401, an unmatched path, a probe) is written at a bounded
    // rate (keyless-records.ts); a key's requests and batch lines always are.
    if (record.source === 'http' && record.apiKeyId === null && !keyless.take()) return;
    log.write(record);
  });
  log.start();
  return { log, keyless };
}

/** Records as JSON texts, written in the log's batches (a record written before is the same record). */
export async function insertAll(store: RequestLogStore, texts: readonly string[]): Promise<void> {
  const size = DEFAULT_REQUEST_LOG_SETTINGS.batchSize;
  for (let from = 0; from < texts.length; from += size) await store.insert(RecordBatch.of(texts.slice(from, from + size)));
}
