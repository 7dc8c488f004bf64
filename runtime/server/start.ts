// Starts a whole gateway: store, key ring, HTTP server, built-in handlers, then the caller's setup
// hook (where inference and control-plane handlers are registered), and only then listens.
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { ROUTES as GENERATED_ROUTES } from '../../generated/routes.ts';
import * as generatedValidators from '../../generated/validators.js';
import { DEFAULT_POLL_MS } from '../store/change-feed.ts';
import { DEFAULT_DATA_DIR, type GatewayStore, openGatewayStore } from '../store/open-store.ts';
import type { LogWriterPlacement } from '../store/sqlite/sqlite-request-log-store.ts';
import { RECORD_KINDS } from '../store/record-kinds.ts';
import { ApiKeyRing } from './auth.ts';
import { createHealthHandler, HEALTH_HANDLER, type HealthDetails } from './health.ts';
import { createJsonLogger, describeError, type GatewayLogger } from '../core/log.ts';
import { Outage } from '../core/outage.ts';
import type { RouteSpec } from './match.ts';
import { createGateway, type Gateway, type Handler, type ServerTimeouts } from './server.ts';
import { ValidatorRegistry } from '../core/validate.ts';
import type { RequestRecord } from '../core/request-record.ts';
import type { Tracing } from '../telemetry/tracing.ts';

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';

/** What the setup hook receives: enough to register handlers and reach the store and settings. */
export interface GatewaySetup {
  gateway: Gateway;
  store: GatewayStore;
  keys: ApiKeyRing;
  logger: GatewayLogger;
  dataDir: string;
  configsDir: string | null;
  /** Folder of named guardrails (files); null when there is none. */
  guardrailsDir: string | null;
  /** Work to finish on shutdown, after the server drained and before the store closes (e.g. hand back batch leases). */
  onClose(hook: () => Promise<void>): void;
  /** OpenTelemetry tracing when configured; null when off. */
  tracing: Tracing | null;
  /** Registers a consumer of finished request records (the request log, metrics). */
  onRecord(consumer: (record: RequestRecord) => void): void;
  /** Hands a finished record to every consumer: the server does this for each request; batch lines call it themselves. */
  recordFinished(record: RequestRecord): void;
  /** Adds a field to GET /v1/health's answer, read on every health request. */
  healthDetail(name: string, value: () => unknown): void;
  /** Whether each backend the gateway depends on answers (`store`, `redis`, `semantic_index`), read when asked (/metrics). */
  readonly backends: ReadonlyMap<string, () => boolean>;
  /** Registers a backend's state for `backends`, and as `{"status": "ok" | "unavailable"}` under its name in GET /v1/health. */
  backendStatus(name: string, up: () => boolean): void;
}

export interface StartGatewayOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  /** A PostgreSQL URL selects the PostgreSQL store (serve passes DATABASE_URL); otherwise SQLite under dataDir. */
  databaseUrl?: string | null;
  /** How often the store's change feed is polled (keys, configs, prompts, policies written by other processes). */
  storePollMs?: number;
  /** Folder of saved configs; start.ts only passes it on to `setup`. */
  configsDir?: string | null;
  /** Folder of named guardrails; by default `guardrails/` beside the configs folder (read when it exists). */
  guardrailsDir?: string | null;
  /** Seeded as an admin key (hashed) when the store does not know it yet; serve passes GATEWAY_API_KEY. */
  seedApiKey?: string | null;
  /** Defaults to generated/routes.ts. */
  routes?: readonly RouteSpec[];
  /** Defaults to generated/validators.js. */
  validators?: Readonly<Record<string, unknown>>;
  logger?: GatewayLogger;
  maxBodyBytes?: number;
  maxHeaderBytes?: number;
  timeouts?: Partial<ServerTimeouts>;
  /** SQLite only: where request-log inserts run (serve: GATEWAY_LOG_WRITER); auto when not given. */
  logWriter?: LogWriterPlacement;
  /** OpenTelemetry tracing (serve starts it when OTEL_EXPORTER_OTLP_ENDPOINT is set); shut down on close. */
  tracing?: Tracing | null;
  /** Runs after the built-in handlers are registered and before the server listens. */
  setup?(setup: GatewaySetup): Promise<unknown>;
}

export interface RunningGateway {
  url: string;
  address: AddressInfo;
  gateway: Gateway;
  store: GatewayStore;
  keys: ApiKeyRing;
  registerHandler(name: string, handler: Handler): void;
  /** Drains the server, then closes the store; safe to call more than once. */
  close(): Promise<void>;
}

export async function startGateway(options: StartGatewayOptions = {}): Promise<RunningGateway> {
  const logger = options.logger ?? createJsonLogger();
  const dataDir = resolve(options.dataDir ?? DEFAULT_DATA_DIR);
  const routes = options.routes ?? GENERATED_ROUTES;
  const changeFeedOutage = new Outage(logger, 'store_change_feed_failed', 'store_change_feed_recovered', 'error');
  const store = await openGatewayStore({
    dataDir,
    databaseUrl: options.databaseUrl,
    logWriter: options.logWriter,
    changeFeed: {
      onError: (error, kind) => changeFeedOutage.failed(() => ({ kind, error: describeError(error) })),
      onPolled: () => changeFeedOutage.recovered(),
    },
  });
  const keys = new ApiKeyRing(store.apiKeys);
  const closeHooks: Array<() => Promise<void>> = [];
  const recordConsumers: Array<(record: RequestRecord) => void> = [];
  const recordFinished = (record: RequestRecord): void => {
    for (const consume of recordConsumers) consume(record);
  };
  let gateway: Gateway;
  try {
    if (options.seedApiKey) await seedKey(store, options.seedApiKey, logger);
    await store.changes.watch(RECORD_KINDS.apiKeys, keys.onChange);
    await keys.reload();
    gateway = createGateway({
      routes,
      keyRing: keys,
      validators: new ValidatorRegistry(options.validators ?? generatedValidators),
      logger,
      maxBodyBytes: options.maxBodyBytes,
      maxHeaderBytes: options.maxHeaderBytes,
      timeouts: options.timeouts,
      onRecord: recordFinished,
      tracing: options.tracing ?? null,
    });
    const healthDetails: HealthDetails = new Map();
    const backends = new Map<string, () => boolean>([['store', () => !changeFeedOutage.down]]);
    // Informational: routed requests go on from memory while the database is away, so `status` stays ok.
    healthDetails.set('store', () => ({ backend: store.backend, status: changeFeedOutage.down ? 'unavailable' : 'ok' }));
    if (routes.some((route) => route.handler === HEALTH_HANDLER)) gateway.registerHandler(HEALTH_HANDLER, createHealthHandler(gateway, healthDetails));
    await options.setup?.({
      gateway, store, keys, logger, dataDir, configsDir: options.configsDir ?? null, guardrailsDir: guardrailsDirOf(options), tracing: options.tracing ?? null,
      onClose: (hook) => closeHooks.push(hook),
      onRecord: (consumer) => recordConsumers.push(consumer),
      recordFinished,
      healthDetail: (name, value) => healthDetails.set(name, value),
      backends,
      backendStatus: (name, up) => {
        backends.set(name, up);
        healthDetails.set(name, () => ({ status: up() ? 'ok' : 'unavailable' }));
      },
    });
  } catch (err) {
    await store.close();
    throw err;
  }

  const host = options.host ?? DEFAULT_HOST;
  let address: AddressInfo;
  try {
    address = await gateway.listen(options.port ?? DEFAULT_PORT, host);
  } catch (err) {
    await store.close();
    throw err;
  }
  store.changes.start(options.storePollMs ?? DEFAULT_POLL_MS);
  gateway.markReady();

  let closing: Promise<void> | null = null;
  return {
    url: urlOf(address),
    address,
    gateway,
    store,
    keys,
    registerHandler: (name, handler) => gateway.registerHandler(name, handler),
    close() {
      if (closing === null) {
        // Held until the stop is done: the pg pool waits for a free connection on an unref'd timer, and
        // a process with nothing else in its event loop would exit in the middle of its last writes.
        const stillStopping = setInterval(() => undefined, 60_000);
        closing = (async () => {
          try {
            await gateway.close();
            // The hooks' last writes must end inside an orchestrator's grace period, the database answering or not.
            store.stopping();
            for (const hook of closeHooks) await hook().catch((error: unknown) => logger.error('shutdown_hook_failed', { error: describeError(error) }));
          } finally {
            await options.tracing?.shutdown().catch((error: unknown) => logger.error('tracing_shutdown_failed', { error: describeError(error) }));
            await store.close();
          }
        })().finally(() => clearInterval(stillStopping));
      }
      return closing;
    },
  };
}

async function seedKey(store: GatewayStore, key: string, logger: GatewayLogger): Promise<void> {
  const { record, created } = await store.apiKeys.ensureKey(key, { name: 'GATEWAY_API_KEY', scope: 'admin' });
  if (created) logger.info('api_key_seeded', { key_id: record.id });
  if (record.revokedAt !== null) logger.warn('seed_api_key_revoked', { key_id: record.id, revoked_at: record.revokedAt });
}

function urlOf(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** The guardrails folder: the one given, else `guardrails/` beside the configs folder. */
function guardrailsDirOf(options: StartGatewayOptions): string | null {
  if (options.guardrailsDir !== undefined) return options.guardrailsDir;
  return options.configsDir ? join(dirname(resolve(options.configsDir)), 'guardrails') : null;
}
