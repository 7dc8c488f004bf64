// `gateway serve`: runs the gateway until SIGINT or SIGTERM, then drains and exits.
import { buildInfo, EMBEDDED_CONFIGS, EMBEDDED_GUARDRAILS } from '../../compiler/config/embedded-files.ts';
import { type ControlPlane, setupControlPlane } from '../api/index.ts';
import { setupVirtualKeys } from '../api/virtual-keys/index.ts';
import { setupInference } from '../inference/index.ts';
import { setupJobs } from '../api/jobs.ts';
import { setupRequestLog } from '../api/logs/index.ts';
import { setupMetrics } from '../api/metrics/index.ts';
import { telemetrySettingsFromEnv } from '../telemetry/settings.ts';
import { startTracing, tracingSettingsFromEnv } from '../telemetry/tracing.ts';
import { DEFAULT_POLL_MS } from '../store/change-feed.ts';
import { DEFAULT_HOST, DEFAULT_PORT, type GatewaySetup, type StartGatewayOptions, startGateway } from '../server/start.ts';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUTS, maxBodyBytesFromEnv } from '../server/server.ts';
import { DEFAULT_DATA_DIR } from '../store/open-store.ts';
import { LOG_WRITER_PLACEMENTS, type LogWriterPlacement } from '../store/sqlite/sqlite-request-log-store.ts';
import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, parsePort, reportUsageError, UsageError } from './args.ts';
import { serveEnvProblems } from './serve-env.ts';
import { checkEmbeddingsRoute } from '../api/cache/embedder.ts';
import { envInteger } from '../core/env-integer.ts';
import { createJsonLogger } from '../core/log.ts';
import { SERVE_ENV, SERVE_NODE_FLAGS } from '../../bin/memory-tuning.js';

export const SERVE_USAGE = `Usage: gateway serve [--port N] [--host H] [--configs DIR] [--guardrails DIR] [--no-watch] [--data DIR]

Runs the gateway HTTP server. Prints one line with its URL when ready; SIGINT or SIGTERM drain
in-flight requests and stop it (a second signal stops it at once).

Options:
  --port N         port to listen on (default ${DEFAULT_PORT}; 0 picks a free port)
  --host H         address to bind (default ${DEFAULT_HOST})
  --configs DIR    folder of saved configs to load (a one-file build serves the configs it was
                   built with unless this is given)
  --guardrails DIR folder of named guardrails configs use by ID (default: guardrails/ beside
                   the configs folder, when it exists)
  --no-watch       do not reload the configs and guardrails folders when their files change
                   (SIGHUP still reloads them)
  --data DIR       data directory holding the embedded store (default ${DEFAULT_DATA_DIR})
  -h, --help       show this help

Environment:
  DATABASE_URL                 PostgreSQL URL: store records there (shared by every gateway process)
                               instead of the SQLite file under --data
  GATEWAY_STORE_POLL_MS        how often changes made by other processes are picked up (default ${DEFAULT_POLL_MS})
  GATEWAY_DRAIN_MS             how long a stop lets in-flight requests finish before it cuts them
                               (default ${DEFAULT_TIMEOUTS.drainMs}; keep it a few seconds under the grace
                               period your supervisor gives before SIGKILL)
  GATEWAY_MAX_BODY_BYTES       largest request body the server takes (default ${DEFAULT_MAX_BODY_BYTES}, 2097152 to
                               1073741824; each body in flight is held in memory whole)
  GATEWAY_API_KEY              stored (hashed) as an admin key at start unless the store already has it
  GATEWAY_RETRY_BASE_MS        backoff base for retries (default 1000)
  GATEWAY_RETRY_MAX_MS         cap on any single retry wait (default 30000)
  GATEWAY_INLINE_CONFIG_CACHE  distinct inline configs kept compiled (default 1000; and at most 4 KiB of
                               their text per entry together)
  GATEWAY_VENDOR_BASE_URL      base URL of the first-party vendor API
  GATEWAY_MASTER_KEY           32-byte key (base64 or hex) sealing virtual keys; default: DIR/master.key,
                               generated on first start (processes sharing PostgreSQL must share it)
  GATEWAY_CUSTOM_HOST_ALLOWLIST  comma-separated hosts, addresses and CIDR ranges custom_host may use
                               (default: any host but link-local and cloud metadata addresses)
  GATEWAY_FILE_MAX_BYTES       largest file an upload to /v1/files may carry (default 26214400, or
                               GATEWAY_MAX_BODY_BYTES less 1048576 when that is less; at most that)
  GATEWAY_FILE_STORAGE_MAX_BYTES  bytes of files the gateway keeps per organisation, all together
                               (default 10737418240; 0: no limit)
  GATEWAY_BATCH_CONCURRENCY    lines of one gateway-managed batch in flight at once (default 8)
  GATEWAY_BATCH_MAX_RUNNING    gateway-managed batches one process runs at once (default 4)
  GATEWAY_BATCH_LEASE_MS       how long the batches of a process that died wait before another takes
                               them over (default 30000)
  GATEWAY_BATCH_POLL_MS        how often a process looks for batches to run or take over (default 1000)
  GATEWAY_PROVIDER_CONTRACT    lenient (default: pass on, log and count provider answers that break
                               their schema) or strict (answer 502 instead)
  GATEWAY_MODEL_CATALOG        a model catalog file replacing the built-in one (docs/jobs.md)
  GATEWAY_RESPONSE_RETENTION_DAYS  days stored responses are kept (default 30; 0 keeps them)
  GATEWAY_RESPONSE_STORAGE_MAX_BYTES  bytes of stored responses the gateway keeps per organisation
                               (default 10737418240, 10 GiB; 0: no limit)
  GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS  longest wait for a provider's response headers (default 60000)
  GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS     longest silence between a provider's body chunks (default 60000)
  GATEWAY_UPSTREAM_MAX_POOLS   upstream connection pools kept at most (default 256)
  GATEWAY_UPSTREAM_MAX_BYTES   largest provider answer held in memory (default 33554432)
  GATEWAY_PRICING_FILE         a model catalog file whose models are added over the built-in prices
  GATEWAY_REQUEST_LOG          off: store no request records (default on; docs/observability.md)
  GATEWAY_LOG_RETENTION_DAYS   days request records are kept (default 30; 0 keeps them)
  GATEWAY_LOG_WRITER           where SQLite request-log inserts run: thread (a writer thread), main (the
                               serving thread, 128 rows at a time) or auto (default: thread when the
                               process may use two CPUs or more, by its affinity and cgroup CPU
                               quota); not with DATABASE_URL
  GATEWAY_LOG_BODIES           on: keep request and response bodies in records, capped and with
                               credentials redacted (default off)
  GATEWAY_LOG_BODY_MAX_BYTES   the cap per body, at least 1 (default 16384)
  GATEWAY_LOG_QUEUE_MAX        records waiting to be written at most; past it they are dropped and
                               counted (default 20000)
  GATEWAY_LOG_FLUSH_MS         how often waiting records are written, at least 10 (default 500)
  GATEWAY_LOG_SPILL_MAX_BYTES  disk the records kept in files under --data while the store is away
                               may take; past it they are dropped and counted (default 1073741824;
                               0 keeps none)
  GATEWAY_METRICS              off: no /metrics and nothing counted (default on)
  GATEWAY_METRICS_KEY          when set, /metrics wants it as a bearer token or x-gateway-api-key
  REDIS_URL                    count rate and usage limits, keep cached answers, circuit breakers and
                               the reasoning output checks rewrote in Redis, shared by every process
                               (docs/limits.md, docs/cache.md, docs/config.md, docs/guardrails.md);
                               without it each process counts and caches alone
  GATEWAY_REDIS_TIMEOUT_MS     longest wait for one Redis call on the request path; past it limits
                               count in the process and a cache lookup is a miss (default 250)
  GATEWAY_ALERT_WEBHOOK        an http(s) URL that receives usage-limit alerts (POST, JSON)
  GATEWAY_LIMIT_MAX_GROUPS     groups one limits policy keeps (live rate windows, and budgets per
                               period; with REDIS_URL, all processes together); a new group past it
                               is 429 limit_groups_full
                               (default 1000000; 0: no bound)
  GATEWAY_CACHE_DEFAULT_MAX_AGE  seconds a cached answer lives when its config gives no max_age
                               (default 86400, at most 2147483647); with REDIS_URL the cache is shared
                               (docs/cache.md)
  GATEWAY_CACHE_MAX_BYTES      bytes the in-memory response cache holds, LRU (default 268435456)
  GATEWAY_SEMANTIC_CACHE_EMBEDDINGS  the embeddings route of semantic caches: a saved config id or an
                               inline config; without it a config with a semantic cache is refused
  GATEWAY_SEMANTIC_CACHE_MODEL the embedding model sent on it (required with it)
  GATEWAY_SEMANTIC_CACHE_THRESHOLD  cosine similarity a semantic match needs (default 0.95)
  GATEWAY_SEMANTIC_CACHE_MAX_ENTRIES  vectors the semantic index keeps (default 100000; each key scope
                                      after the first counts as 16 more)
  OTEL_EXPORTER_OTLP_ENDPOINT  an OpenTelemetry collector (OTLP/HTTP): send a span per request and per
                               upstream attempt (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: the full traces
                               URL; OTEL_SERVICE_NAME, default model-gateway); off when unset
  GATEWAY_MEMORY_TUNING        off: keep Node's and glibc's own memory defaults (see Memory)

A setting that only works beside another (the semantic cache's beside its embeddings route, the
Redis timeout beside REDIS_URL, the metrics key beside metrics, the log's beside the log) is refused
when set without it: serve names each and exits 1 (docs/cli.md).

Memory: serve re-executes itself once (same pid and arguments) with the node flags
${SERVE_NODE_FLAGS.join(' ')} and ${Object.entries(SERVE_ENV).map(([name, value]) => `${name}=${value}`).join(' ')}, which bound V8's young
generation, how far old space fills before a full GC, and glibc's malloc arenas: under load it peaks
tens of MB lower than with the defaults (150-320 MB), for a few µs more GC per request. A flag given
to node (command line or NODE_OPTIONS) or a MALLOC_ARENA_MAX already set wins. A process started
with an IPC channel (fork) cannot re-execute; it runs untuned and says so. Starts after the first
load every module from Node's compile cache (NODE_COMPILE_CACHE) and so skip TypeScript type
stripping (~25 MB).`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  configs: { type: 'string' },
  data: { type: 'string' },
  guardrails: { type: 'string' },
  'no-watch': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** How long a stopped server waits for what is still open to end by itself before it exits. */
const EXIT_GRACE_MS = 1000;

/** The data plane, then the control plane (which loads the --configs folder itself: it owns saved configs), then virtual keys, then files, batches, fine-tuning and responses. */
export async function serveSetup(setup: GatewaySetup): Promise<ControlPlane> {
  const telemetry = telemetrySettingsFromEnv();
  const resolver = await setupInference({ ...setup, configsDir: null }, { telemetry });
  const plane = await setupControlPlane(setup, resolver);
  // Once the saved configs are loaded: a semantic cache's embeddings route must resolve at start.
  const semantic = resolver.services.cache?.settings.semantic ?? null;
  if (semantic !== null) checkEmbeddingsRoute(resolver, semantic);
  const virtualKeys = await setupVirtualKeys(setup, resolver, { configs: plane.configs });
  await setupJobs(setup, resolver, { credentials: () => virtualKeys.ring });
  const metrics = resolver.services.metrics;
  setupMetrics(setup, metrics, telemetry);
  // Last: its shutdown hook writes the records of everything above once the server has drained.
  const wired = setupRequestLog(setup, telemetry);
  if (wired !== null) {
    const { log, keyless } = wired;
    metrics?.addSources({ logQueue: () => ({ queued: log.queued, dropped: log.dropped, written: log.written, keylessDropped: keyless.dropped }) });
  }
  return plane;
}

/** GATEWAY_LOG_WRITER (the SQLite request log's only: serve-env.ts refuses it beside DATABASE_URL). */
export function logWriterFromEnv(env: NodeJS.ProcessEnv): LogWriterPlacement | undefined {
  const raw = env.GATEWAY_LOG_WRITER;
  if (raw === undefined || raw === '') return undefined;
  const placement = LOG_WRITER_PLACEMENTS.find((name) => name === raw.trim().toLowerCase());
  if (placement === undefined) throw new UsageError(`GATEWAY_LOG_WRITER must be one of ${LOG_WRITER_PLACEMENTS.join(', ')}, not ${JSON.stringify(raw)}`);
  return placement;
}

/** `extra` is where the application adds its setup hook (inference handlers, compiled configs). */
export async function runServe(argv: string[], extra: StartGatewayOptions = {}): Promise<number> {
  let options: StartGatewayOptions;
  let plane: ControlPlane | null = null;
  let watch = true;
  try {
    const { values } = parseCommandArgs(argv, OPTIONS);
    if (values.help === true) {
      process.stdout.write(`${SERVE_USAGE}\n`);
      return EXIT_OK;
    }
    const problems = serveEnvProblems(process.env);
    if (problems.length > 0) {
      for (const problem of problems) process.stderr.write(`gateway serve: ${problem}\n`);
      return EXIT_FAILURE;
    }
    // A one-file build (gateway build) carries its configs and guardrails: served unless a folder is named.
    const embedded = values.configs === undefined && (buildInfo()?.configs.length ?? 0) > 0;
    watch = values['no-watch'] !== true && !embedded;
    options = {
      setup: async (setup) => {
        plane = await serveSetup(setup);
      },
      ...extra,
      port: parsePort(values.port, DEFAULT_PORT),
      host: values.host ?? DEFAULT_HOST,
      configsDir: values.configs ?? (embedded ? EMBEDDED_CONFIGS : null),
      ...(values.guardrails === undefined ? (embedded ? { guardrailsDir: EMBEDDED_GUARDRAILS } : {}) : { guardrailsDir: values.guardrails }),
      dataDir: values.data ?? DEFAULT_DATA_DIR,
      databaseUrl: process.env.DATABASE_URL || null,
      storePollMs: envInteger(process.env, 'GATEWAY_STORE_POLL_MS', DEFAULT_POLL_MS, 10),
      timeouts: { ...extra.timeouts, drainMs: envInteger(process.env, 'GATEWAY_DRAIN_MS', DEFAULT_TIMEOUTS.drainMs, 0) },
      maxBodyBytes: maxBodyBytesFromEnv(process.env),
      logWriter: logWriterFromEnv(process.env),
      seedApiKey: process.env.GATEWAY_API_KEY || null,
    };
  } catch (err) {
    if (err instanceof UsageError) return reportUsageError('serve', err, SERVE_USAGE);
    // A setting's value refused (GATEWAY_STORE_POLL_MS=5): said like every other start error.
    process.stderr.write(`gateway serve: ${(err as Error).message}\n`);
    return EXIT_FAILURE;
  }

  let running;
  try {
    // One logger for the gateway and its tracing, so a test's (extra.logger) sees both.
    const logger = options.logger ?? createJsonLogger();
    running = await startGateway({ ...options, logger, tracing: options.tracing ?? (await startTracing(tracingSettingsFromEnv(), logger)) });
  } catch (err) {
    process.stderr.write(`gateway serve: ${(err as Error).message}\n`);
    return EXIT_FAILURE;
  }
  // Signal handlers before the ready line: a supervisor that signals as soon as it reads the line (the
  // write wakes it, and on a busy machine it may run before this process does again) still gets a drain.
  const stopRequested = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  // SIGHUP reloads the configs and guardrails folders (it would otherwise end the process).
  const folders = (plane as ControlPlane | null)?.folders ?? null;
  const reload = (): void => {
    if (folders === null) process.stderr.write('gateway: SIGHUP received; no --configs folder to reload\n');
    else void folders.reload('SIGHUP');
  };
  process.on('SIGHUP', reload);
  const stopWatching = watch && folders !== null ? folders.watch() : null;
  process.stdout.write(`gateway listening on ${running.url}\n`);

  const signal = await stopRequested;
  stopWatching?.();
  process.off('SIGHUP', reload);
  const force = (): never => process.exit(EXIT_FAILURE);
  process.once('SIGINT', force);
  process.once('SIGTERM', force);
  process.stderr.write(`gateway: ${signal} received, draining\n`);
  await running.close();
  process.off('SIGINT', force);
  process.off('SIGTERM', force);
  // Everything the gateway holds is written or kept in files by now. A request still open to a
  // collector or a database that does not answer (each gives up on its own, in seconds to minutes)
  // must not hold the exit; with nothing open, the process ends before this fires.
  setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
  return EXIT_OK;
}
