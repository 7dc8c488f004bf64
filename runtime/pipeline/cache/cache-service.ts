// What the cache stages use, installed into the routers' services at start (runtime/api/hot-state.ts).
import type { CacheSettings } from './cache-settings.ts';
import type { ResponseCache } from './response-cache.ts';
import type { SemanticCache } from './semantic-cache.ts';

export interface CacheService {
  store: ResponseCache;
  settings: CacheSettings;
  /** Null without GATEWAY_SEMANTIC_CACHE_EMBEDDINGS: a route with a semantic cache is then refused (docs/cache.md). */
  semantic: SemanticCache | null;
}
