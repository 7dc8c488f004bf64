// Turns a RoutePlan into a live router: emit its source once, instantiate it with `new Function`
// (never a cache-busting import, which leaks: ARCHITECTURE §8) over a RouterRuntime.
import { emitRouterBody } from '../../compiler/config/emit.ts';
import type { RoutePlan } from '../../compiler/config/route-plan.ts';
import type { CircuitBreakers } from '../router/breaker.ts';
import { RouterRuntime, type CompiledRouter } from '../router/router-runtime.ts';
import { sleep } from '../router/abort.ts';
import { isConnectionError, isUpstreamTimeout } from '../upstream/errors.ts';
import type { InferenceRequest } from './inference-request.ts';
import type { InferenceSettings } from './settings.ts';
import type { InferenceTransport } from './transport.ts';

export interface LoadedRouter {
  configId: string;
  /** Whether the router reads the parsed body (override_params, params conditions, …). */
  readsBody: boolean;
  /** The plan it was built from (which providers its leaves name: runtime/jobs/provider-apis.ts). */
  plan: RoutePlan;
  route: CompiledRouter<InferenceRequest>;
}

export interface RouterDeps {
  transport: InferenceTransport;
  breakers: CircuitBreakers;
  settings: InferenceSettings;
  random?: () => number;
}

export function buildRouter(plan: RoutePlan, deps: RouterDeps): LoadedRouter {
  const runtime = new RouterRuntime<InferenceRequest>({
    configId: plan.configId,
    transport: deps.transport.call,
    providerOf: deps.transport.providerOf,
    breakers: deps.breakers,
    retry: { baseDelayMs: deps.settings.retryBaseMs, maxDelayMs: deps.settings.retryMaxMs, sleep, random: Math.random, now: Date.now },
    random: deps.random ?? Math.random,
    isConnectionError,
    isTimeoutError: isUpstreamTimeout,
  });
  const createRouter = new Function('rt', emitRouterBody(plan)) as (rt: RouterRuntime<InferenceRequest>) => CompiledRouter<InferenceRequest>;
  return { configId: plan.configId, readsBody: plan.readsBody, plan, route: createRouter(runtime) };
}
