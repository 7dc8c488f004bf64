// /v1/fine_tuning/jobs (SPEC §2.2, §2.3, §4.3–4.6): forwarded to the routed provider, which must have
// a fine-tuning API (every target the route may pick). Bodies and queries are checked by the route
// table before they leave; the provider's answers are checked against the schemas on the way back
// (runtime/jobs/contract.ts): a violation is passed on, logged and counted, or a 502 in strict mode.
import type { JobDeps } from '../../jobs/deps.ts';
import { forward, routerOf } from '../../jobs/forward.ts';
import { routeHasApi } from '../../jobs/provider-apis.ts';
import type { LoadedRouter } from '../../inference/routers.ts';
import { resolveRouter } from '../../inference/handlers.ts';
import type { RequestContext } from '../../server/context.ts';
import { GatewayError } from '../../core/errors.ts';
import type { Handler } from '../../server/server.ts';
import { callerOf, pathParam } from '../http.ts';

export function fineTuningHandlers(deps: JobDeps): Record<string, Handler> {
  /** The route, which must name a provider with a fine-tuning API. */
  function fineTuningRoute(ctx: RequestContext): LoadedRouter {
    callerOf(ctx);
    const router = routerOf(ctx, deps) ?? resolveRouter(ctx.headers, deps.resolver);
    if (!routeHasApi(router, ctx.headers, deps.credentials(), 'fine_tuning')) {
      throw new GatewayError('endpoint_not_supported', 'Fine-tuning is forwarded to the provider, and not every target of this route has a fine-tuning API.', 'provider');
    }
    return router;
  }

  const query = (ctx: RequestContext): string => (ctx.rawQuery === '' ? '' : `?${ctx.rawQuery}`);
  const jobPath = (ctx: RequestContext): string => `/fine_tuning/jobs/${encodeURIComponent(pathParam(ctx, 'fine_tuning_job_id'))}`;

  async function call(ctx: RequestContext, method: 'GET' | 'POST', upstreamPath: string, validator: string, body: Buffer | null = null): Promise<void> {
    const router = fineTuningRoute(ctx);
    await deps.contract.relay(ctx, await forward(deps, router, ctx, { method, upstreamPath, body }), validator);
  }

  return {
    'fineTuning.create': async (ctx) => {
      await ctx.json();
      await call(ctx, 'POST', '/fine_tuning/jobs', 'validateFineTuningJob', await ctx.readBody());
    },
    'fineTuning.list': (ctx) => call(ctx, 'GET', `/fine_tuning/jobs${query(ctx)}`, 'validateFineTuningJobList'),
    'fineTuning.retrieve': (ctx) => call(ctx, 'GET', jobPath(ctx), 'validateFineTuningJob'),
    'fineTuning.cancel': (ctx) => call(ctx, 'POST', `${jobPath(ctx)}/cancel`, 'validateFineTuningJob'),
    'fineTuning.listCheckpoints': (ctx) => call(ctx, 'GET', `${jobPath(ctx)}/checkpoints${query(ctx)}`, 'validateFineTuningCheckpointList'),
  };
}
