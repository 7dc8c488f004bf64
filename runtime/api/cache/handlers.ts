// `DELETE /v1/cache` (admin scope): purges the caller's organisation's cached answers, all of them
// or those of one namespace and/or saved config.
import type { CachePurge as CachePurgeBody } from '../../../generated/types.ts';
import type { CachePurge } from '../../pipeline/cache/response-cache.ts';
import type { Handler } from '../../server/server.ts';
import { requireAdmin, sendOk } from '../http.ts';
import type { CachePurger } from './shared-purges.ts';

export function cacheHandlers(purge: CachePurger): Record<string, Handler> {
  return {
    'cache.purge': async (ctx) => {
      const caller = requireAdmin(ctx);
      const query = ctx.query;
      const namespace = typeof query.namespace === 'string' ? query.namespace : undefined;
      const configId = typeof query.config_id === 'string' ? query.config_id : undefined;
      const filter: CachePurge = { organisation: caller.organisationId };
      if (namespace !== undefined) filter.namespace = namespace;
      if (configId !== undefined) filter.configId = configId;
      const purged = await purge(filter);
      sendOk(ctx, { object: 'cache.purge', purged, namespace: namespace ?? null, config_id: configId ?? null } satisfies CachePurgeBody);
    },
  };
}
