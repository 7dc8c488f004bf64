// Forwarding a files, batches, fine-tuning or responses request to the routed provider: through the
// same router as any request (fallback, retries, timeouts), as a pass-through of the provider's
// own endpoint, then relayed as received or read for the gateway to combine or check.
import type { IncomingHttpHeaders } from 'node:http';
import { CONFIG_HEADER, PROVIDER_HEADER, VIRTUAL_KEY_HEADER } from '../core/gateway-headers.ts';
import { httpExchange, resolveRouter } from '../inference/handlers.ts';
import type { LoadedRouter } from '../inference/routers.ts';
import { sendOutcome, setOutcomeHeaders } from '../inference/send-outcome.ts';
import type { Outcome } from '../router/outcome.ts';
import type { RequestContext } from '../server/context.ts';
import { GatewayError } from '../core/errors.ts';
import { sendGatewayError } from '../server/respond.ts';
import type { JobDeps } from './deps.ts';
import { type ProviderApi, routeHasApi } from './provider-apis.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';

const ROUTING_HEADERS = [CONFIG_HEADER, PROVIDER_HEADER, VIRTUAL_KEY_HEADER];

export function namesRoute(headers: IncomingHttpHeaders): boolean {
  return ROUTING_HEADERS.some((name) => typeof headers[name] === 'string' && headers[name] !== '');
}

/** The request's router, or null when its headers name no route at all (a bad one is still an error). */
export function routerOf(ctx: RequestContext, deps: JobDeps): LoadedRouter | null {
  return namesRoute(ctx.headers) ? resolveRouter(ctx.headers, deps.resolver) : null;
}

/** True when the request names a route whose every target has the API. */
export function forwardable(router: LoadedRouter | null, ctx: RequestContext, deps: JobDeps, api: ProviderApi): router is LoadedRouter {
  return router !== null && routeHasApi(router, ctx.headers, deps.credentials(), api);
}

export interface ForwardRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path after `/v1`, with its query string. */
  upstreamPath: string;
  body?: Buffer | null;
  /** The body is not JSON (a multipart upload): routing rules never parse it. */
  opaqueBody?: boolean;
}

export async function forward(deps: JobDeps, router: LoadedRouter, ctx: RequestContext, request: ForwardRequest): Promise<Outcome> {
  try {
    return await ctx.routed(router.run(httpExchange(ctx, router, { method: request.method, upstreamPath: request.upstreamPath, rawBody: request.body ?? null, opaqueBody: request.opaqueBody })));
  } catch (error) {
    if (ctx.clientGone) throw new GatewayError('internal_error', 'The client went away.');
    throw error;
  }
}

/** Relays the provider's answer (or the gateway's error) exactly as received. */
export function relay(ctx: RequestContext, outcome: Outcome): Promise<void> {
  return sendOutcome(ctx, outcome);
}

export interface BufferedAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  bytes: Buffer;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: unknown;
}

/** Reads the provider's whole answer; null when the outcome is a gateway error (already sent). */
export async function readAnswer(ctx: RequestContext, outcome: Outcome): Promise<BufferedAnswer | null> {
  setOutcomeHeaders(ctx.res, outcome);
  if (outcome.response === null) {
    sendGatewayError(ctx.res, outcome.error ?? new GatewayError('internal_error'));
    return null;
  }
  let bytes: Buffer;
  try {
    bytes = await outcome.response.readAll();
  } catch (error) {
    throw new GatewayError('upstream_stream_broken', `The provider's answer broke off: ${(error as Error).message}`, null, { provider: outcome.provider });
  }
  let json: unknown;
  try {
    json = parseJson(bytes.toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: outcome.response.status, headers: outcome.response.headers, bytes, json };
}

/** Sends a buffered provider answer unchanged (status, headers, bytes). */
export function sendAnswer(ctx: RequestContext, answer: BufferedAnswer): void {
  if (ctx.res.headersSent || ctx.res.destroyed) return;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(answer.headers)) if (name !== 'content-length' && name !== 'transfer-encoding') headers[name] = value;
  headers['content-length'] = String(answer.bytes.length);
  ctx.res.writeHead(answer.status, headers);
  ctx.res.end(answer.bytes);
}

export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** The request's query string with some parameters replaced (or removed, with null). */
export function queryWith(rawQuery: string, changes: Record<string, string | null>): string {
  const params = new URLSearchParams(rawQuery);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) params.delete(name);
    else params.set(name, value);
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
