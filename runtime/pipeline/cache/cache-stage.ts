// The response-cache stages (ARCHITECTURE §5 "Cache"). A cache set on the config's root wraps the
// whole route (request phase: a hit never reaches the router); one set on a target below the root
// wraps each try of its leaves (attempt phase: the key names that target). Chat, completions and
// embeddings are cached; a route's other endpoints pass through with DISABLED. Every answer of a
// cached endpoint carries x-gateway-cache-status: HIT, MISS or REFRESH (force refresh skips the
// lookup and stores the new answer). Only complete 2xx answers are stored; a hit is the stored
// status, content headers and bytes (a stream replays as the same SSE stream), plus this request's
// own gateway headers.
import { CACHE_STATUS_HEADER } from '../../core/gateway-headers.ts';
import type { CachePlan, PlanNode, RoutePlan } from '../../core/plan.ts';
import { CACHE_STATUS, type CacheStatus } from '../../core/request-record.ts';
import type { Outcome } from '../../router/outcome.ts';
import type { EndpointKind } from '../../providers/types.ts';
import type { UpstreamResponse } from '../../upstream/types.ts';
import { bufferedResponse } from '../answers.ts';
import type { Exchange } from '../exchange.ts';
import type { Services } from '../services.ts';
import type { Stage, StageFn } from '../stage.ts';
import type { CachedAnswer } from './cached-answer.ts';
import { cacheKey, scopeOfNode } from './cache-key.ts';
import type { CacheService } from './cache-service.ts';
import type { CacheTags } from './response-cache.ts';
import { storing } from './storing-response.ts';

const CACHED_ENDPOINTS: ReadonlySet<EndpointKind> = new Set(['chat', 'completions', 'embeddings']);

/** One frozen header object per status: the request path allocates none for it. */
const STATUS_HEADERS: Readonly<Record<CacheStatus, Readonly<Record<string, string>>>> = Object.freeze(
  Object.fromEntries(Object.values(CACHE_STATUS).map((status) => [status, Object.freeze({ [CACHE_STATUS_HEADER]: status })])) as unknown as Record<CacheStatus, Record<string, string>>,
);

export const cacheStage: Stage = {
  name: 'cache',
  phase: 'request',
  readsBody: (node, plan) => node === plan.root && node.cache !== null,
  prepare(node, services, plan) {
    if (node.cache === null || services.cache === null) return null;
    return cachedRoute(node, node.cache, plan, services, services.cache);
  },
};

export const attemptCacheStage: Stage = {
  name: 'attempt-cache',
  phase: 'attempt',
  readsBody: (node, plan) => node.cache !== null && !sameCache(node.cache, plan.root.cache),
  prepare(node, services, plan) {
    if (node.cache === null || services.cache === null) return null;
    // A leaf that has the root's cache (inherited) is inside the route the root's cache wraps already.
    if (sameCache(node.cache, plan.root.cache)) return null;
    return cachedRoute(node, node.cache, plan, services, services.cache);
  },
};

function sameCache(a: CachePlan | null, b: CachePlan | null): boolean {
  return a !== null && b !== null && a.mode === b.mode && a.maxAgeSeconds === b.maxAgeSeconds;
}

function cachedRoute(node: PlanNode, cachePlan: CachePlan, plan: RoutePlan, services: Services, cache: CacheService): StageFn {
  const scope = scopeOfNode(plan.configId, node);
  const ttlMs = cachePlan.maxAgeSeconds === null ? cache.settings.defaultMaxAgeMs : cachePlan.maxAgeSeconds * 1000;
  const configId = plan.configId.startsWith('inline:') || plan.configId.startsWith('headers:') ? null : plan.configId;
  const store = cache.store;
  const maxEntryBytes = cache.settings.maxEntryBytes;
  const metrics = services.metrics;
  const now = services.now;

  const fn: StageFn = async (x, next) => {
    if (!CACHED_ENDPOINTS.has(x.endpoint) || x.method !== 'POST' || x.rawBody === null) return next(x);
    await x.json();
    const key = cacheKey(x, scope);
    const record = x.record;
    if (!x.options.cacheForceRefresh) {
      const hit = await store.get(key);
      if (hit !== null) {
        record.cacheStatus = CACHE_STATUS.hit;
        return hitOutcome(hit, now());
      }
    }
    const status = x.options.cacheForceRefresh ? CACHE_STATUS.refresh : CACHE_STATUS.miss;
    record.cacheStatus = status;
    const outcome = await next(x);
    const headers = outcome.headers === undefined ? STATUS_HEADERS[status] : { ...outcome.headers, ...STATUS_HEADERS[status] };
    const response = outcome.response;
    if (response === null || outcome.status < 200 || outcome.status >= 300) return { ...outcome, headers };
    const tags: CacheTags = { organisation: x.caller?.organisationId ?? '', namespace: x.options.cacheNamespace, configId };
    const keep = (body: Buffer): void => {
      const answer: CachedAnswer = { status: response.status, headers: contentHeaders(response), body, storedAt: now(), leafPath: outcome.leafPath, provider: outcome.provider };
      metrics?.cacheStored(body.length);
      void store.set(key, answer, ttlMs, tags);
    };
    return { ...outcome, headers, response: storing(response, maxEntryBytes, keep) };
  };
  return fn;
}

function hitOutcome(answer: CachedAnswer, now: number): Outcome {
  const headers: Record<string, string> = { ...answer.headers, 'content-length': String(answer.body.length) };
  const age = String(Math.max(0, Math.floor((now - answer.storedAt) / 1000)));
  return {
    status: answer.status,
    leafPath: answer.leafPath,
    provider: answer.provider,
    retries: 0,
    headers: { [CACHE_STATUS_HEADER]: CACHE_STATUS.hit, age },
    response: bufferedResponse(answer.status, headers, answer.body),
    error: null,
  };
}

/** The headers that describe the body (content-type, content-encoding, …), without its length: a hit sets its own. */
function contentHeaders(response: UpstreamResponse): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name in response.headers) {
    if (!name.startsWith('content-') || name === 'content-length') continue;
    const value = response.headers[name];
    kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}
