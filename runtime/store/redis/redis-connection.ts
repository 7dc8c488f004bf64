// The one Redis connection of a gateway process (REDIS_URL): shared hot state, namely limit
// counters and the response cache. A command on the request path must answer fast or
// fail: no offline queue (a command while disconnected fails at once), no per-command retries, a
// short command timeout; ioredis reconnects in the background, and the callers fall back to their
// process-local state meanwhile (ARCHITECTURE §6: Redis down never means a 5xx).
import type { Redis } from 'ioredis';
import type { GatewayLogger } from '../../core/log.ts';
import { envInteger } from '../../core/env-integer.ts';

export interface RedisSettings {
  url: string;
  /** Per command; past it the caller treats Redis as unavailable for that request. */
  commandTimeoutMs: number;
}

export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 250;

export function redisSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): RedisSettings | null {
  const url = env.REDIS_URL?.trim();
  if (url === undefined || url === '') return null;
  // Checked here, not left to the client: it would take any other text for a host and retry it for
  // ever while the gateway served without Redis. The value is not echoed: it may hold a password.
  if (!/^rediss?:\/\//i.test(url)) throw new Error('REDIS_URL must be a redis:// or rediss:// URL (redis://[user:password@]host[:port][/db]).');
  return { url, commandTimeoutMs: envInteger(env, 'GATEWAY_REDIS_TIMEOUT_MS', DEFAULT_REDIS_COMMAND_TIMEOUT_MS, 1) };
}

/** Connects, waiting at most `commandTimeoutMs` × 4 for the first connection; a Redis that is not up yet is logged, not fatal. */
export async function openRedis(settings: RedisSettings, logger: GatewayLogger): Promise<Redis> {
  // Loaded only here: a gateway without REDIS_URL never holds the client's modules (~12 MB of RSS at start).
  const { Redis } = await import('ioredis');
  const redis = new Redis(settings.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: settings.commandTimeoutMs,
    connectTimeout: Math.max(1000, settings.commandTimeoutMs * 4),
    lazyConnect: true,
    // Keep trying, at most every 2 s: the gateway serves meanwhile.
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
  const note = 'serving with process-local state until Redis answers';
  let lastError = '';
  redis.on('error', (error: Error) => {
    // Once per distinct message: a down Redis retries every 2 s and would flood the log.
    if (error.message === lastError) return;
    lastError = error.message;
    logger.warn('redis_unavailable', { error: error.message, note });
  });
  redis.on('ready', () => {
    if (lastError !== '') logger.info('redis_ready', {});
    lastError = '';
  });
  try {
    await redis.connect();
  } catch (error) {
    // The connection's own error event said why, unless the connect failed before one came.
    if (lastError === '') {
      lastError = (error as Error).message;
      logger.warn('redis_unavailable', { error: lastError, note });
    }
  }
  return redis;
}
