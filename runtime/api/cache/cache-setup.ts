// The response cache of a gateway process: in Redis when REDIS_URL is set (shared by every process,
// and never failing a request: a lookup Redis does not answer is a miss), else in this process's
// memory, bounded by GATEWAY_CACHE_MAX_BYTES. Installed into the routers' services before any saved
// config is built.
import type { Redis } from 'ioredis';
import type { CacheService } from '../../pipeline/cache/cache-service.ts';
import { cacheSettingsFromEnv } from '../../pipeline/cache/cache-settings.ts';
import { FailOpenCache } from '../../pipeline/cache/fail-open-cache.ts';
import { MemoryResponseCache } from '../../pipeline/cache/memory-cache.ts';
import { RedisResponseCache } from '../../pipeline/cache/redis-cache.ts';
import type { Services } from '../../pipeline/services.ts';
import type { GatewaySetup } from '../../server/start.ts';

export function setupCache(setup: GatewaySetup, services: Services, redis: Redis | null, env: NodeJS.ProcessEnv = process.env): CacheService {
  const settings = cacheSettingsFromEnv(env);
  let store;
  if (redis === null) {
    const memory = new MemoryResponseCache(settings.maxBytes, services.now);
    services.metrics?.addSources({ cacheMemory: () => ({ bytes: memory.bytes, entries: memory.entries }) });
    store = memory;
  } else {
    store = new FailOpenCache(new RedisResponseCache(redis), setup.logger, (operation) => services.metrics?.cacheBackendFailure(operation));
  }
  const cache: CacheService = { store, settings };
  services.cache = cache;
  return cache;
}
