// The request as routers and the transport see it: what RoutedRequest needs plus what the upstream
// call needs. One object per request, filled once by the handler.
import type { EndpointKind } from '../providers/types.ts';
import type { RoutedRequest } from '../router/router-runtime.ts';
import type { RequestContext } from '../server/context.ts';

/**
 * What routing and the transport read of a request's context. A live request passes its
 * RequestContext; a request that did not come over HTTP (a batch line, an emulated Responses call)
 * passes an object with just these parts (runtime/jobs/detached-context.ts).
 */
export type InferenceContext = Pick<RequestContext, 'headers' | 'route' | 'forwardHeaders' | 'json'>;

export interface InferenceRequest extends RoutedRequest {
  ctx: InferenceContext;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path after `/v1`, with the query string: appended to the provider's base URL. */
  upstreamPath: string;
  /** Raw request body bytes (null for bodiless methods); forwarded untouched unless a rule rewrites it. */
  rawBody: Buffer | null;
  /** The token of `Authorization: Bearer …`: the credential of leaves that set no api_key. */
  bearerToken: string | null;
  /** x-gateway-custom-host. */
  headerCustomHost: string | null;
}

/** Route handler names (generated/routes.ts) → the provider endpoint they call. */
const ENDPOINTS: Readonly<Record<string, EndpointKind>> = {
  'inference.chat': 'chat',
  'inference.completions': 'completions',
  'inference.embeddings': 'embeddings',
  'inference.audio': 'audio',
  'inference.images': 'images',
  'inference.models': 'models',
};

/** Which provider endpoint a request calls; anything not named above is a pass-through. */
export function endpointOf(req: InferenceRequest): EndpointKind {
  const handler = req.ctx.route?.handler;
  return handler !== undefined && Object.hasOwn(ENDPOINTS, handler) ? ENDPOINTS[handler] : 'passthrough';
}
