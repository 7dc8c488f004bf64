// Request-log and pricing settings, read from the environment once at start.
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
    log: {
      ...DEFAULT_REQUEST_LOG_SETTINGS,
      retentionDays: count(env.GATEWAY_LOG_RETENTION_DAYS, DEFAULT_REQUEST_LOG_SETTINGS.retentionDays, 'GATEWAY_LOG_RETENTION_DAYS'),
      queueMax: Math.max(1, count(env.GATEWAY_LOG_QUEUE_MAX, DEFAULT_REQUEST_LOG_SETTINGS.queueMax, 'GATEWAY_LOG_QUEUE_MAX')),
      flushMs: Math.max(10, count(env.GATEWAY_LOG_FLUSH_MS, DEFAULT_REQUEST_LOG_SETTINGS.flushMs, 'GATEWAY_LOG_FLUSH_MS')),
    },
    logBodies: onOff(env.GATEWAY_LOG_BODIES, false, 'GATEWAY_LOG_BODIES'),
    logBodyMaxBytes: Math.max(1, count(env.GATEWAY_LOG_BODY_MAX_BYTES, 16 * 1024, 'GATEWAY_LOG_BODY_MAX_BYTES')),
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

function count(raw: string | undefined, fallback: number, name: string): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number ≥ 0, not ${JSON.stringify(raw)}`);
  return value;
}
