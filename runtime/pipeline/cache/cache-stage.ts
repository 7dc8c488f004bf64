// The response-cache stages (ARCHITECTURE §5 "Cache"). A cache set on the config's root wraps the
// whole route (request phase: a hit never reaches the router); one set on a target below the root
// wraps each try of its leaves (attempt phase: the key names that target). Chat, completions and
// embeddings are cached; a route's other endpoints pass through with DISABLED. Every answer of a
// cached endpoint carries x-gateway-cache-status: HIT, MISS or REFRESH (force refresh skips the
// lookup and stores the new answer). Only complete 2xx answers are stored; a hit is the stored
// status, content headers and bytes (a stream replays as the same SSE stream), plus this request's
// own gateway headers.
import { GatewayError } from '../../core/errors.ts';
import { CACHE_SIMILARITY_HEADER, CACHE_STATUS_HEADER, CONFIG_HEADER } from '../../core/gateway-headers.ts';
import type { CachePlan, PlanNode, RoutePlan } from '../../core/plan.ts';
import { CACHE_STATUS, type CacheStatus } from '../../core/request-record.ts';
import { errorOutcome, type Outcome } from '../../router/outcome.ts';
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
import { splitRequest } from './request-text.ts';
import { storing } from './storing-response.ts';
import { carriesError } from './answer-error.ts';
import { keepAgain } from '../turn-memory/kept-thinking-memory.ts';
import { isEventStreamType } from '../../core/event-stream-type.ts';

const CACHED_ENDPOINTS: ReadonlySet<EndpointKind> = new Set(['chat', 'completions', 'embeddings']);

/** One frozen header object per status: the request path allocates none for it. */
const STATUS_HEADERS: Readonly<Record<CacheStatus, Readonly<Record<string, string>>>> = Object.freeze(
  Object.fromEntries(Object.values(CACHE_STATUS).map((status) => [status, Object.freeze({ [CACHE_STATUS_HEADER]: status })])) as unknown as Record<CacheStatus, Record<string, string>>,
);

// No `readsBody`: the compiler marks every plan with a cache anywhere as reading the body.
export const cacheStage: Stage = {
  name: 'cache',
  phase: 'request',
  prepare(node, services, plan) {
    if (node.cache === null || services.cache === null) return null;
    return cachedRoute(node, node.cache, plan, services, services.cache);
  },
};

export const attemptCacheStage: Stage = {
  name: 'attempt-cache',
  phase: 'attempt',
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
  const semantic = cachePlan.mode === 'semantic' ? cache.semantic : null;
  if (cachePlan.mode === 'semantic' && semantic === null) {
    // Never a silent simple cache: the route says semantic, and this gateway cannot do it.
    const refusal = new GatewayError('semantic_cache_unavailable', `The config's cache at ${node.path} is semantic, and this gateway has no embeddings route for one: set GATEWAY_SEMANTIC_CACHE_EMBEDDINGS and GATEWAY_SEMANTIC_CACHE_MODEL, or use "mode": "simple".`, CONFIG_HEADER);
    const refuse: StageFn = (x, next) => (CACHED_ENDPOINTS.has(x.endpoint) ? Promise.resolve(errorOutcome(refusal, '', '')) : next(x));
    return refuse;
  }
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
    const refresh = x.options.cacheForceRefresh;
    if (!refresh) {
      const hit = await store.get(key);
      if (hit !== null) {
        record.cacheStatus = CACHE_STATUS.hit;
        keptAgain(services, x, hit);
        return hitOutcome(hit, now(), CACHE_STATUS.hit, null);
      }
    }
    // Semantic: chat and completions by their text (an exact repeat was a HIT above, with no embedding call).
    let similar: { scope: string; vector: Float32Array } | null = null;
    const endpoint = x.endpoint;
    if (semantic !== null && (endpoint === 'chat' || endpoint === 'completions')) {
      const split = splitRequest(endpoint, x.params);
      const vector = split.text === '' ? null : await semantic.embed(split.text, x);
      if (vector !== null) {
        similar = { scope: cacheKey(x, scope, split.rest), vector };
        const match = refresh ? null : await semantic.match(similar.scope, vector);
        if (match !== null) {
          const answer = await store.get(match.entryKey);
          if (answer !== null) {
            record.cacheStatus = CACHE_STATUS.semanticHit;
            keptAgain(services, x, answer);
            return hitOutcome(answer, now(), CACHE_STATUS.semanticHit, match.similarity);
          }
          semantic.index.forget(similar.scope, match.entryKey, vector.length);
        }
      }
    }
    const status = refresh ? CACHE_STATUS.refresh : semantic !== null && endpoint !== 'embeddings' ? CACHE_STATUS.semanticMiss : CACHE_STATUS.miss;
    record.cacheStatus = status;
    const outcome = await next(x);
    const headers = outcome.headers === undefined ? STATUS_HEADERS[status] : { ...outcome.headers, ...STATUS_HEADERS[status] };
    const response = outcome.response;
    if (response === null || outcome.status < 200 || outcome.status >= 300) return { ...outcome, headers };
    const tags: CacheTags = { organisation: x.caller?.organisationId ?? '', namespace: x.options.cacheNamespace, configId };
    const keep = (body: Buffer): void => {
      const content = contentHeaders(response);
      const stream = isEventStreamType(content['content-type']);
      if (carriesError(body, stream)) return;
      const storedAt = now();
      const answer: CachedAnswer = { status: response.status, headers: content, body, storedAt, leafPath: outcome.leafPath, provider: outcome.provider };
      // A stream's usage its provider reported outside it (the client asked for no usage chunk), so
      // a hit is logged with it too rather than with an estimate.
      const reported = stream ? x.upstreamTry?.reportedUsage : undefined;
      if (reported !== undefined && reported !== null) answer.usage = reported;
      const kept = x.upstreamTry?.keptThinking;
      if (kept !== undefined && kept !== null) answer.kept = kept;
      metrics?.cacheStored(body.length);
      const stored = store.set(key, answer, ttlMs, tags);
      // The vector once the answer is in the store, so no process matches it before it can be read.
      if (similar !== null && semantic !== null) {
        const entry = { scope: similar.scope, vector: similar.vector, entryKey: key, expiresAt: storedAt + ttlMs };
        void stored.then(() => semantic.remember(entry));
      }
    };
    return { ...outcome, headers, response: storing(response, maxEntryBytes, keep) };
  };
  return fn;
}

/** A hit answering tool calls after signed thinking: the thinking is kept again for this request's organisation (kept-thinking-memory.ts). */
function keptAgain(services: Services, x: Exchange, answer: CachedAnswer): void {
  const memory = services.turns;
  if (answer.kept !== undefined && memory !== null) keepAgain(memory, x, answer.kept);
}

function hitOutcome(answer: CachedAnswer, now: number, status: CacheStatus, similarity: number | null): Outcome {
  const headers: Record<string, string> = { ...answer.headers, 'content-length': String(answer.body.length) };
  const age = String(Math.max(0, Math.floor((now - answer.storedAt) / 1000)));
  const added: Record<string, string> = { [CACHE_STATUS_HEADER]: status, age };
  if (similarity !== null) added[CACHE_SIMILARITY_HEADER] = similarity.toFixed(4);
  const outcome: Outcome = {
    status: answer.status,
    leafPath: answer.leafPath,
    provider: answer.provider,
    retries: 0,
    headers: added,
    response: bufferedResponse(answer.status, headers, answer.body),
    error: null,
  };
  if (answer.usage !== undefined) outcome.reportedUsage = answer.usage;
  return outcome;
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
