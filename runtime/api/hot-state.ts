// The shared hot state of a gateway process (ARCHITECTURE §6): limit counters, the response cache,
// circuit breakers and what is kept between a conversation's turns, in this process's memory, or in Redis when REDIS_URL is set, over one
// connection opened here. Installed into the routers' services before any saved config is built.
import type { Redis } from 'ioredis';
import type { CacheService } from '../pipeline/cache/cache-service.ts';
import type { CachePurger } from './cache/shared-purges.ts';
import type { Limits } from '../pipeline/limits/limits.ts';
import type { ConfigResolver } from '../inference/config-resolver.ts';
import type { GatewaySetup } from '../server/start.ts';
import { openRedis, redisSettingsFromEnv } from '../store/redis/redis-connection.ts';
import { RedisBreakerStore } from '../router/redis-breaker-store.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { setupCache } from './cache/cache-setup.ts';
import { RedisTurnMemory } from '../pipeline/turn-memory/redis-turn-memory.ts';
import { setupLimits } from './policies/limits-setup.ts';

export interface HotState {
  limits: Limits;
  cache: CacheService;
  purgeCache: CachePurger;
}

/**
 * Circuit breakers in Redis: every process counts toward one threshold and skips what another opened.
 * Waits for the shared states a moment at most: a Redis that is not up yet must not hold the start.
 */
async function shareBreakers(setup: GatewaySetup, resolver: ConfigResolver, redis: Redis, commandTimeoutMs: number): Promise<void> {
  // Its own connection (a subscriber takes no other command), queueing the subscription until it connects.
  const subscriber = redis.duplicate({ enableOfflineQueue: true, lazyConnect: false, commandTimeout: Math.max(1000, commandTimeoutMs * 4) });
  const store = new RedisBreakerStore(redis, subscriber, setup.logger, () => resolver.services.metrics?.breakerSyncFailure());
  resolver.breakers.useStore(store);
  setup.onClose(async () => store.stop());
  await Promise.race([store.start(), sleep(commandTimeoutMs * 4)]);
}

export async function setupHotState(setup: GatewaySetup, resolver: ConfigResolver, env: NodeJS.ProcessEnv = process.env): Promise<HotState> {
  const services = resolver.services;
  const settings = redisSettingsFromEnv(env);
  let redis: Redis | null = null;
  if (settings !== null) {
    const connection = await openRedis(settings, setup.logger);
    setup.onClose(async () => {
      connection.disconnect();
    });
    redis = connection;
    setup.backendStatus('redis', () => connection.status === 'ready');
    await shareBreakers(setup, resolver, connection, settings.commandTimeoutMs);
    // Every process finds what any of them kept between turns (a conversation's turns go to any).
    services.turns = new RedisTurnMemory(connection, setup.logger);
  }
  const limits = await setupLimits(setup, services, redis, env);
  const { cache, purge } = await setupCache(setup, resolver, redis, env);
  return { limits, cache, purgeCache: purge };
}
