// The shared hot state of a gateway process (ARCHITECTURE §6): limit counters and the response
// cache, in this process's memory, or in Redis when REDIS_URL is set, over one connection opened
// here. Installed into the routers' services before any saved config is built.
import type { Redis } from 'ioredis';
import type { CacheService } from '../pipeline/cache/cache-service.ts';
import type { Limits } from '../pipeline/limits/limits.ts';
import type { ConfigResolver } from '../inference/config-resolver.ts';
import type { GatewaySetup } from '../server/start.ts';
import { openRedis, redisSettingsFromEnv } from '../store/redis/redis-connection.ts';
import { setupCache } from './cache/cache-setup.ts';
import { setupLimits } from './policies/limits-setup.ts';

export interface HotState {
  limits: Limits;
  cache: CacheService;
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
  }
  return { limits: await setupLimits(setup, services, redis, env), cache: await setupCache(setup, resolver, redis, env) };
}
