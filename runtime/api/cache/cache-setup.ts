// The response cache of a gateway process: in Redis when REDIS_URL is set (shared by every process,
// and never failing a request: a lookup Redis does not answer is a miss), else in this process's
// memory, bounded by GATEWAY_CACHE_MAX_BYTES; and the semantic cache when the server names an
// embeddings route for it. Installed into the routers' services before any saved config is built.
// The admin's purge reaches every process: through Redis, or through the store's change feed when
// each process caches in its own memory (shared-purges.ts).
import type { Redis } from 'ioredis';
import type { CacheService } from '../../pipeline/cache/cache-service.ts';
import { cacheSettingsFromEnv, type SemanticSettings } from '../../pipeline/cache/cache-settings.ts';
import { FailOpenCache } from '../../pipeline/cache/fail-open-cache.ts';
import { MemoryResponseCache } from '../../pipeline/cache/memory-cache.ts';
import { RedisResponseCache } from '../../pipeline/cache/redis-cache.ts';
import type { ConfigResolver } from '../../inference/config-resolver.ts';
import { SemanticCache } from '../../pipeline/cache/semantic-cache.ts';
import { RedisSemanticFeed } from '../../pipeline/cache/semantic-feed.ts';
import { SemanticIndex } from '../../pipeline/cache/semantic-index.ts';
import { routeEmbedder } from './embedder.ts';
import type { GatewaySetup } from '../../server/start.ts';
import { GatewayError } from '../../core/errors.ts';
import { type CachePurger, purgeEveryProcess } from './shared-purges.ts';

/** Longer than the feed's blocking read (1 s). */
const FEED_COMMAND_TIMEOUT_MS = 5000;

export interface CacheSetup {
  cache: CacheService;
  /** `DELETE /v1/cache`. */
  purge: CachePurger;
}

export async function setupCache(setup: GatewaySetup, resolver: ConfigResolver, redis: Redis | null, env: NodeJS.ProcessEnv = process.env): Promise<CacheSetup> {
  const services = resolver.services;
  const settings = cacheSettingsFromEnv(env);
  let store;
  let purge: CachePurger;
  if (redis === null) {
    const memory = new MemoryResponseCache(settings.maxBytes, services.now);
    services.metrics?.addSources({ cacheMemory: () => ({ bytes: memory.bytes, entries: memory.entries }) });
    store = memory;
    purge = await purgeEveryProcess(memory, setup.store.cachePurges, setup.store.changes, setup.logger);
  } else {
    const shared = new FailOpenCache(new RedisResponseCache(redis), setup.logger, (operation) => services.metrics?.cacheBackendFailure(operation));
    store = shared;
    purge = (filter) =>
      shared.purge(filter).catch((error: unknown) => {
        throw new GatewayError('cache_unavailable', `The shared response cache (Redis) did not answer: ${(error as Error).message}. Nothing was purged for sure; try again.`);
      });
  }
  const cache: CacheService = { store, settings, semantic: await setupSemantic(setup, resolver, settings.semantic, redis) };
  services.cache = cache;
  return { cache, purge };
}

async function setupSemantic(setup: GatewaySetup, resolver: ConfigResolver, settings: SemanticSettings | null, redis: Redis | null): Promise<SemanticCache | null> {
  if (settings === null) return null;
  const services = resolver.services;
  let indexRunning = true;
  const index = await SemanticIndex.create(settings.maxEntries, services.now, (reason) => {
    indexRunning = false;
    setup.logger.error('semantic_index_stopped', { reason, note: 'every semantic lookup is a SEMANTIC MISS until the gateway restarts' });
  });
  setup.backendStatus('semantic_index', () => indexRunning);
  const semantic = new SemanticCache(index, routeEmbedder(resolver, settings, setup.logger, services.metrics), settings.threshold);
  setup.onClose(() => index.close());
  services.metrics?.addSources({ semanticVectors: () => index.size });
  setup.logger.info('semantic_cache', { embeddings: settings.embeddings.startsWith('{') ? 'inline config' : settings.embeddings, model: settings.model, threshold: settings.threshold, shared: redis !== null });
  if (redis !== null) {
    // Its own connection: a blocking read holds it (longer than the request path's command timeout),
    // and it may queue while Redis is away: nothing waits on it.
    const reader = redis.duplicate({ lazyConnect: false, enableOfflineQueue: true, commandTimeout: FEED_COMMAND_TIMEOUT_MS });
    reader.on('error', () => {});
    const feed = new RedisSemanticFeed(redis, reader, settings.maxEntries, setup.logger, services.now);
    semantic.publishTo(feed);
    feed.follow(semantic);
    setup.onClose(() => feed.stop());
  }
  return semantic;
}
