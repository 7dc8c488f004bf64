// Serve's environment checked as a whole before anything starts. Each module checks the values of
// the settings it reads; what no one module sees is a setting that only works beside another one.
// Set without it, it would be accepted and change nothing (a metrics key on a gateway without
// metrics, a semantic-cache threshold without a semantic cache): refused instead, every such
// setting at once, so a mistake in an environment file is found at start (docs/decisions.md).
import { switchState } from '../telemetry/settings.ts';
import { OPT_OUT_VARIABLE } from '../../bin/memory-tuning.js';
import { envHttpUrl } from '../core/env-url.ts';
import { closest } from '../../compiler/config/suggest.ts';

interface Dependency {
  /** Settings that do something only when `active` holds. */
  names: readonly string[];
  active(env: NodeJS.ProcessEnv): boolean;
  /** Why they would do nothing, said when they are set anyway. */
  otherwise: string;
}

/**
 * Every environment variable serve (and what it starts) reads, named in docs/cli.md, cache.md or
 * limits.md. A test holds it to the code's reads and to the docs. Only names close to one of these
 * are judged: other GATEWAY_ variables may be a config's own `${NAME}` references.
 */
export const SERVE_SETTINGS = [
  'DATABASE_URL', 'REDIS_URL', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_SERVICE_NAME', 'OTEL_SDK_DISABLED',
  'GATEWAY_ALERT_WEBHOOK', 'GATEWAY_API_KEY', 'GATEWAY_BATCH_CONCURRENCY', 'GATEWAY_BATCH_LEASE_MS', 'GATEWAY_BATCH_MAX_RUNNING',
  'GATEWAY_BATCH_POLL_MS', 'GATEWAY_CACHE_DEFAULT_MAX_AGE', 'GATEWAY_CACHE_MAX_BYTES', 'GATEWAY_CUSTOM_HOST_ALLOWLIST', 'GATEWAY_DRAIN_MS',
  'GATEWAY_FILE_MAX_BYTES', 'GATEWAY_FILE_STORAGE_MAX_BYTES', 'GATEWAY_INLINE_CONFIG_CACHE', 'GATEWAY_LIMIT_MAX_GROUPS', 'GATEWAY_LOG_BODIES', 'GATEWAY_LOG_BODY_MAX_BYTES', 'GATEWAY_LOG_FLUSH_MS',
  'GATEWAY_LOG_QUEUE_MAX', 'GATEWAY_LOG_RETENTION_DAYS', 'GATEWAY_LOG_SPILL_MAX_BYTES', 'GATEWAY_LOG_WRITER', 'GATEWAY_MASTER_KEY', 'GATEWAY_MAX_BODY_BYTES', 'GATEWAY_MEMORY_TUNING',
  'GATEWAY_METRICS', 'GATEWAY_METRICS_KEY', 'GATEWAY_MODEL_CATALOG', 'GATEWAY_PRICING_FILE', 'GATEWAY_PROVIDER_CONTRACT',
  'GATEWAY_REDIS_TIMEOUT_MS', 'GATEWAY_REQUEST_LOG', 'GATEWAY_RESPONSE_RETENTION_DAYS', 'GATEWAY_RESPONSE_STORAGE_MAX_BYTES', 'GATEWAY_RETRY_BASE_MS', 'GATEWAY_RETRY_MAX_MS',
  'GATEWAY_SEMANTIC_CACHE_EMBEDDINGS', 'GATEWAY_SEMANTIC_CACHE_MAX_ENTRIES', 'GATEWAY_SEMANTIC_CACHE_MODEL',
  'GATEWAY_SEMANTIC_CACHE_THRESHOLD', 'GATEWAY_STORE_POLL_MS', 'GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS',
  'GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS', 'GATEWAY_UPSTREAM_MAX_BYTES', 'GATEWAY_UPSTREAM_MAX_POOLS', 'GATEWAY_VENDOR_BASE_URL',
] as const;

const SETTING_PREFIX = 'GATEWAY_';

/** Settings of the request log that do something only while it is on. */
export const REQUEST_LOG_SETTINGS = ['GATEWAY_LOG_BODIES', 'GATEWAY_LOG_BODY_MAX_BYTES', 'GATEWAY_LOG_QUEUE_MAX', 'GATEWAY_LOG_FLUSH_MS', 'GATEWAY_LOG_SPILL_MAX_BYTES', 'GATEWAY_LOG_WRITER'] as const;
/** Settings of /metrics that do something only while it is on. */
export const METRICS_SETTINGS = ['GATEWAY_METRICS_KEY'] as const;

const DEPENDENCIES: readonly Dependency[] = [
  {
    names: ['GATEWAY_SEMANTIC_CACHE_MODEL', 'GATEWAY_SEMANTIC_CACHE_THRESHOLD', 'GATEWAY_SEMANTIC_CACHE_MAX_ENTRIES'],
    active: (env) => isSet(env.GATEWAY_SEMANTIC_CACHE_EMBEDDINGS),
    otherwise: 'GATEWAY_SEMANTIC_CACHE_EMBEDDINGS is not set, so there is no semantic cache',
  },
  { names: ['GATEWAY_REDIS_TIMEOUT_MS'], active: (env) => isSet(env.REDIS_URL), otherwise: 'REDIS_URL is not set, so nothing calls Redis' },
  { names: METRICS_SETTINGS, active: (env) => !isOff(env.GATEWAY_METRICS), otherwise: 'GATEWAY_METRICS is off, so there is no /metrics to protect' },
  {
    names: REQUEST_LOG_SETTINGS,
    active: (env) => !isOff(env.GATEWAY_REQUEST_LOG),
    otherwise: 'GATEWAY_REQUEST_LOG is off, so no record is written',
  },
  { names: ['GATEWAY_LOG_WRITER'], active: (env) => !isSet(env.DATABASE_URL), otherwise: 'it applies to the SQLite store only; with DATABASE_URL the request log is written through the PostgreSQL pool' },
  // Bodies are off unless switched on; an invalid GATEWAY_LOG_BODIES (null) is said by the log's own check.
  { names: ['GATEWAY_LOG_BODY_MAX_BYTES'], active: (env) => switchState(env.GATEWAY_LOG_BODIES) !== false && isSet(env.GATEWAY_LOG_BODIES), otherwise: 'GATEWAY_LOG_BODIES is not on, so no body is logged to cap' },
];

/** One line per setting that is set but would do nothing, and per value no module checks at start; empty when all is well. */
export function serveEnvProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = misspeltSettings(env);
  const reported = new Set<string>();
  for (const dependency of DEPENDENCIES) {
    if (dependency.active(env)) continue;
    for (const name of dependency.names) {
      if (!isSet(env[name]) || reported.has(name)) continue;
      reported.add(name);
      problems.push(`${name} is set, but ${dependency.otherwise}: unset it.`);
    }
  }
  // Read by bin/memory-tuning.js before serve runs, where anything but "off" means on.
  const tuning = env[OPT_OUT_VARIABLE];
  if (isSet(tuning) && !['on', 'off'].includes(tuning!.trim().toLowerCase())) problems.push(`${OPT_OUT_VARIABLE} must be on or off, not ${JSON.stringify(tuning)}.`);
  // Read when a vendor target is first built, which may be a request long after the start.
  try {
    envHttpUrl(env, 'GATEWAY_VENDOR_BASE_URL');
  } catch (error) {
    problems.push((error as Error).message);
  }
  return problems;
}

/**
 * A GATEWAY_ variable that is not a setting but one typo away from one (GATEWAY_LOG_BODY), or a
 * setting's name behind the prefix (GATEWAY_REDIS_URL): set, it would change nothing.
 */
function misspeltSettings(env: NodeJS.ProcessEnv): string[] {
  const known = new Set<string>(SERVE_SETTINGS);
  const problems: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith(SETTING_PREFIX) || known.has(name) || !isSet(env[name])) continue;
    const unprefixed = name.slice(SETTING_PREFIX.length);
    const meant = known.has(unprefixed) ? unprefixed : closest(name, SERVE_SETTINGS);
    if (meant !== null) problems.push(`${name} is not a setting of gateway serve: did you mean ${meant}? (docs/cli.md lists them)`);
  }
  return problems;
}

function isSet(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}

function isOff(value: string | undefined): boolean {
  return switchState(value) === false;
}
