// `DELETE /v1/cache` (admin scope): purges the caller's organisation's cached answers, all of them
// or those of one namespace and/or saved config.
import type { CachePurge as CachePurgeBody } from '../../../generated/types.ts';
import { GatewayError } from '../../core/errors.ts';
import type { CacheService } from '../../pipeline/cache/cache-service.ts';
import type { CachePurge } from '../../pipeline/cache/response-cache.ts';
import type { Handler } from '../../server/server.ts';
import { requireAdmin, sendOk } from '../http.ts';

export function cacheHandlers(cache: CacheService): Record<string, Handler> {
  return {
    'cache.purge': async (ctx) => {
      const caller = requireAdmin(ctx);
      const query = ctx.query;
      const namespace = typeof query.namespace === 'string' ? query.namespace : undefined;
      const configId = typeof query.config_id === 'string' ? query.config_id : undefined;
      const filter: CachePurge = { organisation: caller.organisationId };
      if (namespace !== undefined) filter.namespace = namespace;
      if (configId !== undefined) filter.configId = configId;
      let purged: number;
      try {
        purged = await cache.store.purge(filter);
      } catch (error) {
        throw new GatewayError('cache_unavailable', `The shared response cache (Redis) did not answer: ${(error as Error).message}. Nothing was purged for sure; try again.`);
      }
      sendOk(ctx, { object: 'cache.purge', purged, namespace: namespace ?? null, config_id: configId ?? null } satisfies CachePurgeBody);
    },
  };
}
