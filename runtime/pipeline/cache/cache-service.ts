// What the cache stages use, installed into the routers' services at start (runtime/api/hot-state.ts).
import type { CacheSettings } from './cache-settings.ts';
import type { ResponseCache } from './response-cache.ts';

export interface CacheService {
  store: ResponseCache;
  settings: CacheSettings;
}
