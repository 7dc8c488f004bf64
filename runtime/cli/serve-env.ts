// Serve's environment checked as a whole before anything starts. Each module checks the values of
// the settings it reads; what no one module sees is a setting that only works beside another one.
// Set without it, it would be accepted and change nothing (a metrics key on a gateway without
// metrics, a semantic-cache threshold without a semantic cache): refused instead, every such
// setting at once, so a mistake in an environment file is found at start (docs/decisions.md).
import { switchState } from '../telemetry/settings.ts';
import { OPT_OUT_VARIABLE } from '../../bin/memory-tuning.js';
import { envHttpUrl } from '../core/env-url.ts';

interface Dependency {
  /** Settings that do something only when `active` holds. */
  names: readonly string[];
  active(env: NodeJS.ProcessEnv): boolean;
  /** Why they would do nothing, said when they are set anyway. */
  otherwise: string;
}

/** Settings of the request log that do something only while it is on. */
export const REQUEST_LOG_SETTINGS = ['GATEWAY_LOG_BODIES', 'GATEWAY_LOG_BODY_MAX_BYTES', 'GATEWAY_LOG_QUEUE_MAX', 'GATEWAY_LOG_FLUSH_MS', 'GATEWAY_LOG_WRITER'] as const;
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
];

/** One line per setting that is set but would do nothing, and per value no module checks at start; empty when all is well. */
export function serveEnvProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
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

function isSet(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}

function isOff(value: string | undefined): boolean {
  return switchState(value) === false;
}
