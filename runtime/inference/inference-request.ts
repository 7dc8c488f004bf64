// The request as routers and the transport see it: what RoutedRequest needs plus what the upstream
// call needs. One object per request, filled once by the handler.
import type { RoutedRequest } from '../router/router-runtime.ts';
import type { RequestContext } from '../server/context.ts';

export interface InferenceRequest extends RoutedRequest {
  ctx: RequestContext;
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
