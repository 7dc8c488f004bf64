// The one Redis connection of a gateway process (REDIS_URL): shared hot state, namely limit
// counters and the response cache. A command on the request path must answer fast or
// fail: no offline queue (a command while disconnected fails at once), no per-command retries, a
// short command timeout; ioredis reconnects in the background, and the callers fall back to their
// process-local state meanwhile (ARCHITECTURE §6: Redis down never means a 5xx).
import type { Redis } from 'ioredis';
import type { GatewayLogger } from '../../core/log.ts';
import { envInteger } from '../../core/env-integer.ts';
import { warnOfMemoryPolicy } from './memory-policy.ts';

export interface RedisSettings {
  url: string;
  /** Per command; past it the caller treats Redis as unavailable for that request. */
  commandTimeoutMs: number;
}

export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 250;
/** How often a ready connection is asked for PING (see watchLiveness). */
export const LIVENESS_EVERY_MS = 1000;
/** Unanswered PINGs in a row after which the connection is dropped and made again. */
const LIVENESS_MISSES = 2;
/** At most one reconnection per this long for READONLY answers (see openRedis). */
export const READONLY_RECONNECT_EVERY_MS = 5000;

export function redisSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): RedisSettings | null {
  const url = env.REDIS_URL?.trim();
  if (url === undefined || url === '') return null;
  // Checked here, not left to the client: it would take any other text for a host and retry it for
  // ever while the gateway served without Redis. The value is not echoed: it may hold a password.
  if (!/^rediss?:\/\//i.test(url)) throw new Error('REDIS_URL must be a redis:// or rediss:// URL (redis://[user:password@]host[:port][/db]).');
  return { url, commandTimeoutMs: envInteger(env, 'GATEWAY_REDIS_TIMEOUT_MS', DEFAULT_REDIS_COMMAND_TIMEOUT_MS, 1) };
}

export const REDIS_CLUSTER_UNSUPPORTED = 'REDIS_URL names a node of a Redis Cluster (cluster_enabled:1 in INFO cluster), which the gateway does not support: its limit scripts and cache entries use keys in several hash slots, which a cluster spreads over nodes. Use one Redis (standalone, or a primary with replicas behind one address).';

/**
 * True when the server is a Redis Cluster node. Found out at connect, not by the first MOVED or
 * CROSSSLOT answer: those would make every limit and cache call fall back to the process for as long
 * as it ran, with /v1/health saying ok. A server that refuses INFO (a proxy) is taken as not one.
 */
async function isClusterNode(redis: Redis): Promise<boolean> {
  const info = await redis.call('INFO', 'cluster').catch(() => '');
  return typeof info === 'string' && /^cluster_enabled:1\s*$/m.test(info);
}

/**
 * Connects, waiting at most `commandTimeoutMs` × 4 for the first connection; a Redis that is not up
 * yet is logged, not fatal. A Redis Cluster node is refused: thrown when it answers at once, else
 * logged (`redis_cluster_unsupported`) and disconnected for good once it does, the gateway going on
 * with process-local state.
 */
export async function openRedis(settings: RedisSettings, logger: GatewayLogger): Promise<Redis> {
  // Loaded only here: a gateway without REDIS_URL never holds the client's modules (~12 MB of RSS at start).
  const { Redis } = await import('ioredis');
  const note = 'serving with process-local state until Redis answers';
  let lastError = '';
  // Once per distinct message: a down Redis retries every 2 s and would flood the log.
  const unavailable = (error: string): void => {
    if (error === lastError) return;
    lastError = error;
    logger.warn('redis_unavailable', { error, note });
  };
  // A failover behind a name (a managed Redis's primary endpoint) leaves open connections on the old
  // primary, now a replica: it answers reads and refuses every write with READONLY for as long as
  // they last, and PING keeps them "ready". Connecting again reaches the new primary. At most once
  // per READONLY_RECONNECT_EVERY_MS: a REDIS_URL that names a replica would otherwise reconnect on
  // every write (and its commands fail meanwhile), not only fail the writes.
  let readonlyReconnectAt = -Infinity;
  const readonlyReconnect = (error: Error): 1 | false => {
    if (!error.message.startsWith('READONLY') || performance.now() - readonlyReconnectAt < READONLY_RECONNECT_EVERY_MS) return false;
    readonlyReconnectAt = performance.now();
    unavailable(`${error.message.split('.')[0]}: the server is a replica now; connecting again`);
    return 1;
  };
  const redis = new Redis(settings.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: settings.commandTimeoutMs,
    connectTimeout: Math.max(1000, settings.commandTimeoutMs * 4),
    lazyConnect: true,
    // Keep trying, at most every 2 s: the gateway serves meanwhile.
    retryStrategy: (times) => Math.min(times * 100, 2000),
    reconnectOnError: readonlyReconnect,
  });
  redis.on('error', (error: Error) => unavailable(error.message));
  let starting = true;
  const refuseCluster = async (): Promise<boolean> => {
    if (!(await isClusterNode(redis))) return false;
    redis.disconnect(false);
    if (!starting) logger.error('redis_cluster_unsupported', { error: REDIS_CLUSTER_UNSUPPORTED, note: 'serving with process-local state' });
    return true;
  };
  redis.on('ready', () => {
    if (lastError !== '') logger.info('redis_ready', {});
    lastError = '';
    // At start the caller is told (below); later, the one place to say so is the log.
    if (!starting) void refuseCluster();
    void warnOfMemoryPolicy(redis, logger);
  });
  watchLiveness(redis, settings.commandTimeoutMs, unavailable);
  try {
    await redis.connect();
    if (await refuseCluster()) throw new Error(REDIS_CLUSTER_UNSUPPORTED);
  } catch (error) {
    if ((error as Error).message === REDIS_CLUSTER_UNSUPPORTED) throw error;
    // The connection's own error event said why, unless the connect failed before one came.
    if (lastError === '') unavailable((error as Error).message);
  } finally {
    starting = false;
  }
  return redis;
}

/**
 * A Redis that stops answering on an open connection (a network partition, a server stuck) leaves
 * the connection "ready": every command then waits its full timeout before the caller falls back,
 * 250 ms added to each cached or limited request for as long as it lasts, and /v1/health says ok.
 * A PING a second finds that out: after LIVENESS_MISSES unanswered in a row the connection is
 * dropped and made again. Until the new one passes its ready check, commands fail at once (no
 * offline queue) and the gateway serves from process-local state without the wait.
 */
function watchLiveness(redis: Redis, timeoutMs: number, onSilent: (error: string) => void): void {
  let misses = 0;
  let asking = false;
  const timer = setInterval(() => {
    if (asking || redis.status !== 'ready') return;
    asking = true;
    redis.ping().then(
      () => {
        misses = 0;
      },
      () => {
        if (++misses < LIVENESS_MISSES || redis.status !== 'ready') return;
        misses = 0;
        onSilent(`no answer to ${LIVENESS_MISSES} PINGs in a row within ${timeoutMs} ms each; connecting again`);
        redis.disconnect(true);
      },
    ).finally(() => {
      asking = false;
    });
  }, LIVENESS_EVERY_MS);
  timer.unref();
  redis.on('end', () => clearInterval(timer));
}
