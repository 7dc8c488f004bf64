// The data-plane handlers: chat, completions, embeddings, audio, images, models and the pass-through
// of any other /v1 path. Each request becomes an Exchange and runs through its router's pipeline.
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../core/errors.ts';
import { CONFIG_HEADER, CUSTOM_HOST_HEADER, PROVIDER_HEADER, VIRTUAL_KEY_HEADER } from '../core/gateway-headers.ts';
import type { Exchange, ExchangeSource } from '../pipeline/exchange.ts';
import { newExchange } from '../pipeline/new-exchange.ts';
import { gatewayOptions, headerString } from '../pipeline/options.ts';
import { withRequestSpan } from '../pipeline/trace/attempt-trace-stage.ts';
import type { RequestContext } from '../server/context.ts';
import type { Handler } from '../server/server.ts';
import type { ConfigResolver } from './config-resolver.ts';
import type { LoadedRouter } from './routers.ts';
import { formParams, formParts } from '../core/form-body.ts';
import { boundaryOf } from '../core/multipart.ts';
import { sendOutcome } from './send-outcome.ts';

export const INFERENCE_HANDLERS = [
  'inference.chat', 'inference.completions', 'inference.embeddings', 'inference.audio', 'inference.images', 'inference.models', 'inference.passthrough',
] as const;

const BODYLESS = new Set(['GET', 'DELETE']);
const NO_METHOD = new GatewayError('method_not_allowed', 'The pass-through forwards POST, GET, PUT and DELETE.');

export function createInferenceHandler(resolver: ConfigResolver): Handler {
  return async function handleInference(ctx: RequestContext): Promise<void> {
    // HEAD is answered as GET (node:http leaves the body out): the provider is asked with GET, since
    // an adapter that reads the answer (a models list) needs its body.
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    if (method !== 'POST' && method !== 'GET' && method !== 'PUT' && method !== 'DELETE') throw NO_METHOD;
    const router = resolveRouter(ctx.headers, resolver);
    const sentBody = BODYLESS.has(method) && ctx.headers['content-length'] === undefined && ctx.headers['transfer-encoding'] === undefined ? null : await ctx.readBody();
    const x = httpExchange(ctx, router, { method, upstreamPath: upstreamPathOf(ctx), rawBody: sentBody });
    let outcome;
    try {
      outcome = await ctx.routed(router.run(x));
    } catch (error) {
      if (ctx.clientGone) return;
      throw error;
    }
    await sendOutcome(ctx, outcome);
  };
}

export interface HttpExchangeRequest {
  method: Exchange['method'];
  /** The path after `/v1`, with the query string. */
  upstreamPath: string;
  rawBody: Buffer | null;
  /** The body is not JSON (a multipart upload): routing rules never parse it. */
  opaqueBody?: boolean;
  source?: ExchangeSource;
}

/** The exchange of a live request: its parsed gateway options, its key, its log record. */
export function httpExchange(ctx: RequestContext, router: LoadedRouter, request: HttpExchangeRequest): Exchange {
  const route = ctx.route;
  const key = ctx.apiKey;
  const x = newExchange({
    source: request.source ?? 'http',
    handler: route?.handler ?? null,
    operationId: route?.operationId ?? null,
    method: request.method,
    upstreamPath: request.upstreamPath,
    pathname: ctx.path,
    rawBody: request.rawBody,
    options: gatewayOptions(ctx.headers, ctx, router),
    plan: router.plan,
    caller: key === null ? null : { keyId: key.id, workspaceId: key.workspaceId, organisationId: key.organisationId },
    record: ctx.record,
    signal: ctx.signal,
    readJson: request.opaqueBody === true ? noJson : readerOf(ctx, request.rawBody),
  });
  return withRequestSpan(x, ctx.res.span);
}

const noJson = (): Promise<unknown> => Promise.resolve(undefined);

/**
 * How the body's parameters are read: a form's text fields (audio, image edits), else its JSON. A
 * pass-through body is the provider's to read (a file part's bytes, a vendor's own format): one the
 * gateway cannot parse goes on as sent, and rules that read parameters see none (null), where a
 * guarded or conditional route used to refuse it as a client error.
 */
function readerOf(ctx: RequestContext, body: Buffer | null): () => Promise<unknown> {
  const contentType = ctx.headers['content-type'];
  const boundary = body === null ? null : boundaryOf(contentType);
  const read = boundary === null ? () => ctx.json() : () => {
    try {
      return Promise.resolve(formParams(formParts(body!, boundary)));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  if (ctx.record.routeKind !== 'passthrough') return read;
  return () => read().catch(unreadBody);
}

/** A pass-through body the gateway refused to read (not JSON, too deep, a broken form) has no parameters; anything else is a fault. */
function unreadBody(error: unknown): null {
  if (error instanceof GatewayError) return null;
  throw error;
}

/** The router the request's headers name: x-gateway-config, else x-gateway-provider, else a virtual key. */
export function resolveRouter(headers: IncomingHttpHeaders, resolver: ConfigResolver): LoadedRouter {
  const config = headerString(headers, CONFIG_HEADER);
  if (config !== null) return resolver.fromConfigHeader(config);
  const provider = headerString(headers, PROVIDER_HEADER);
  if (provider !== null) return resolver.fromProviderHeaders(provider, headerString(headers, CUSTOM_HOST_HEADER));
  const virtualKey = headerString(headers, VIRTUAL_KEY_HEADER);
  if (virtualKey !== null) return resolver.fromVirtualKey(virtualKey);
  throw new GatewayError('missing_provider', undefined, PROVIDER_HEADER);
}

/** `/v1/chat/completions?x=1` → `/chat/completions?x=1`: the part after the gateway's version segment. */
function upstreamPathOf(ctx: RequestContext): string {
  const path = ctx.path.startsWith('/v1/') ? ctx.path.slice(3) : ctx.path;
  return ctx.rawQuery === '' ? path : `${path}?${ctx.rawQuery}`;
}
