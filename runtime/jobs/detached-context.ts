// The exchange of a request that did not come over HTTP (a batch line, the chat call behind an
// emulated Responses request): the stored headers of the request it stands for give its gateway
// options, the route of the endpoint it calls gives its validator, and its body is checked by that
// validator when routing reads it, as a live request's would be.
import * as validators from '../../generated/validators.js';
import {
  CACHE_FORCE_REFRESH_HEADER, CACHE_NAMESPACE_HEADER, FORWARD_HEADERS_HEADER, METADATA_HEADER, REQUEST_TIMEOUT_HEADER,
  parseCacheForceRefresh, parseCacheNamespace, parseForwardHeaders, parseMetadata, parseRequestTimeout,
} from '../core/gateway-headers.ts';
import type { LoadedRouter } from '../inference/routers.ts';
import type { Caller, Exchange, ExchangeSource } from '../pipeline/exchange.ts';
import { newExchange } from '../pipeline/new-exchange.ts';
import { gatewayOptions } from '../pipeline/options.ts';
import type { RouteSpec } from '../server/match.ts';
import { type GeneratedValidator, validateBody } from '../core/validate.ts';
import type { RequestRecord } from '../core/request-record.ts';

const VALIDATORS = validators as unknown as Record<string, GeneratedValidator>;

export interface DetachedRequest {
  source: ExchangeSource;
  /** The stored routing headers (runtime/jobs/route-headers.ts). */
  headers: Readonly<Record<string, string>>;
  route: RouteSpec;
  body: unknown;
  router: LoadedRouter;
  record: RequestRecord;
  caller: Caller | null;
  signal: AbortSignal;
}

/** Throws `invalid_header` when a stored header no longer parses (the create request's were checked). */
export function detachedExchange(request: DetachedRequest): Exchange {
  const headers: Record<string, string> = { ...request.headers, 'content-type': 'application/json' };
  const parsed = {
    traceId: request.record.traceId,
    metadata: parseMetadata(headers[METADATA_HEADER]),
    requestTimeoutMs: parseRequestTimeout(headers[REQUEST_TIMEOUT_HEADER]),
    forwardHeaders: parseForwardHeaders(headers[FORWARD_HEADERS_HEADER]),
    cacheForceRefresh: parseCacheForceRefresh(headers[CACHE_FORCE_REFRESH_HEADER]),
    cacheNamespace: parseCacheNamespace(headers[CACHE_NAMESPACE_HEADER]),
  };
  const { route, body } = request;
  request.record.metadata = parsed.metadata;
  return newExchange({
    source: request.source,
    handler: route.handler,
    operationId: route.operationId,
    method: 'POST',
    upstreamPath: route.path.slice('/v1'.length),
    pathname: route.path,
    rawBody: Buffer.from(JSON.stringify(body)),
    options: gatewayOptions(headers, parsed, request.router),
    plan: request.router.plan,
    caller: request.caller,
    record: request.record,
    signal: request.signal,
    readJson: async () => {
      const name = route.bodyValidator;
      if (name !== undefined) {
        const validator = VALIDATORS[name];
        if (validator === undefined) throw new Error(`no generated validator named ${name}`);
        validateBody(validator, body);
      }
      return body;
    },
  });
}

/** The route a batch `endpoint` (`/v1/chat/completions`, …) stands for: POST on that path. */
export function routeForEndpoint(routes: readonly RouteSpec[], endpoint: string): RouteSpec {
  const route = routes.find((r) => r.method === 'POST' && r.path === endpoint);
  if (route === undefined) throw new Error(`no POST route for ${endpoint}`);
  return route;
}
