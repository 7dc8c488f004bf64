// Request-log and pricing settings, read from the environment once at start.
import { envInteger } from '../core/env-integer.ts';
import { BUILT_IN_CATALOG } from './model-catalog.ts';
import { DEFAULT_REQUEST_LOG_SETTINGS, type RequestLogSettings } from './request-log.ts';

export interface TelemetrySettings {
  /** GATEWAY_REQUEST_LOG=off: no record is stored (the logs API then answers with an empty list). */
  requestLog: boolean;
  /** GATEWAY_METRICS=off: no /metrics (404) and nothing counted. */
  metrics: boolean;
  /** GATEWAY_METRICS_KEY: when set, /metrics wants it as a bearer token or x-gateway-api-key. */
  metricsKey: string | null;
  log: RequestLogSettings;
  /** GATEWAY_LOG_SPILL_MAX_BYTES: what the records kept in files while the store is away may take on disk. */
  logSpillMaxBytes: number;
  /** GATEWAY_LOG_BODIES=on: request and response bodies in records, capped, credentials redacted. */
  logBodies: boolean;
  /** GATEWAY_LOG_BODY_MAX_BYTES: the cap per body. */
  logBodyMaxBytes: number;
  /** The pricing table: GATEWAY_MODEL_CATALOG (replaces the built-in catalog) plus GATEWAY_PRICING_FILE (adds or replaces models). */
  catalogPath: string | URL;
  pricingFile: string | null;
}

export function telemetrySettingsFromEnv(env: NodeJS.ProcessEnv = process.env): TelemetrySettings {
  return {
    requestLog: onOff(env.GATEWAY_REQUEST_LOG, true, 'GATEWAY_REQUEST_LOG'),
    metrics: onOff(env.GATEWAY_METRICS, true, 'GATEWAY_METRICS'),
    metricsKey: env.GATEWAY_METRICS_KEY || null,
    // Each bound is the least value that means what it says (a 0 used to become 1 or 10 unsaid).
    log: {
      ...DEFAULT_REQUEST_LOG_SETTINGS,
      retentionDays: envInteger(env, 'GATEWAY_LOG_RETENTION_DAYS', DEFAULT_REQUEST_LOG_SETTINGS.retentionDays, 0),
      queueMax: envInteger(env, 'GATEWAY_LOG_QUEUE_MAX', DEFAULT_REQUEST_LOG_SETTINGS.queueMax, 1),
      flushMs: envInteger(env, 'GATEWAY_LOG_FLUSH_MS', DEFAULT_REQUEST_LOG_SETTINGS.flushMs, 10),
    },
    // ~1.4 million plain records: over 20 minutes of an outage at 1,000 requests a second.
    logSpillMaxBytes: envInteger(env, 'GATEWAY_LOG_SPILL_MAX_BYTES', 1024 ** 3, 0),
    logBodies: onOff(env.GATEWAY_LOG_BODIES, false, 'GATEWAY_LOG_BODIES'),
    logBodyMaxBytes: envInteger(env, 'GATEWAY_LOG_BODY_MAX_BYTES', 16 * 1024, 1),
    catalogPath: env.GATEWAY_MODEL_CATALOG || BUILT_IN_CATALOG,
    pricingFile: env.GATEWAY_PRICING_FILE || null,
  };
}

/** An on/off switch's value: undefined when unset, null when it is neither on nor off. */
export function switchState(raw: string | undefined): boolean | null | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const text = raw.trim().toLowerCase();
  if (text === 'on' || text === 'true' || text === '1') return true;
  if (text === 'off' || text === 'false' || text === '0') return false;
  return null;
}

function onOff(raw: string | undefined, fallback: boolean, name: string): boolean {
  const state = switchState(raw);
  if (state === null) throw new Error(`${name} must be on or off, not ${JSON.stringify(raw)}`);
  return state ?? fallback;
}
