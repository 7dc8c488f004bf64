// The data-plane handlers: chat, completions, embeddings, audio, images, models and the pass-through
// of any other /v1 path. All share one flow; they differ only in whether the body is always checked.
import type { Outcome } from '../router/outcome.ts';
import type { RequestContext } from '../server/context.ts';
import type { Metadata } from '../core/gateway-headers.ts';
import { GatewayError } from '../core/errors.ts';
import type { Handler } from '../server/server.ts';
import { CONFIG_HEADER, CUSTOM_HOST_HEADER, PROVIDER_HEADER, VIRTUAL_KEY_HEADER } from '../core/gateway-headers.ts';
import type { ConfigResolver } from './config-resolver.ts';
import type { InferenceContext, InferenceRequest } from './inference-request.ts';
import type { LoadedRouter } from './routers.ts';
import { sendOutcome } from './send-outcome.ts';

/**
 * Renders a config's `prompt_id` into the request before routing (set by the control plane,
 * runtime/api/prompts/prompt-hook.ts): null when no prompt applies to this config and route.
 */
export type PromptHook = (ctx: InferenceContext, configId: string, rawBody: Buffer) => Promise<{ rawBody: Buffer; params: unknown } | null>;
const promptHooks = new WeakMap<ConfigResolver, PromptHook>();

export function setPromptHook(resolver: ConfigResolver, hook: PromptHook): void {
  promptHooks.set(resolver, hook);
}

export const INFERENCE_HANDLERS = [
  'inference.chat', 'inference.completions', 'inference.embeddings', 'inference.audio', 'inference.images', 'inference.models', 'inference.passthrough',
] as const;

const BODYLESS = new Set(['GET', 'HEAD', 'DELETE']);
const NO_METHOD = new GatewayError('method_not_allowed', 'The pass-through forwards POST, GET, PUT and DELETE.');

export function createInferenceHandler(resolver: ConfigResolver): Handler {
  return async function handleInference(ctx: RequestContext): Promise<void> {
    const method = ctx.method;
    if (method !== 'POST' && method !== 'GET' && method !== 'PUT' && method !== 'DELETE') throw NO_METHOD;
    const router = resolveRouter(ctx, resolver);
    const sentBody = BODYLESS.has(method) && ctx.headers['content-length'] === undefined && ctx.headers['transfer-encoding'] === undefined ? null : await ctx.readBody();
    let outcome;
    try {
      outcome = await routeWith(resolver, router, {
        ctx,
        method,
        upstreamPath: upstreamPathOf(ctx),
        pathname: ctx.path,
        sentBody,
        metadata: ctx.metadata,
        signal: ctx.signal,
        timeoutOverrideMs: ctx.requestTimeoutMs,
      });
    } catch (error) {
      if (ctx.clientGone) return;
      throw error;
    }
    await sendOutcome(ctx, outcome);
  };
}

/** One request as routing sees it once its router is chosen and its body read. */
export interface RouteInput {
  ctx: InferenceContext;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path after `/v1`, with the query string. */
  upstreamPath: string;
  /** The gateway path (`url.pathname` in conditions). */
  pathname: string;
  sentBody: Buffer | null;
  metadata: Metadata;
  signal: AbortSignal;
  timeoutOverrideMs: number | null;
}

/**
 * Runs one request through `router` exactly as the data-plane handler does: the prompt hook, the
 * body check, then the router. Shared with requests that did not come over HTTP (batch lines and
 * emulated Responses calls in runtime/jobs), so they route the same way as a live request.
 * Not async: a request that needs neither the hook nor its parsed body goes to the router without
 * an extra promise.
 */
export function routeWith(resolver: ConfigResolver, router: LoadedRouter, input: RouteInput): Promise<Outcome> {
  const sentBody = input.sentBody;
  // A config with a prompt_id reads the body (plan.readsBody); the hook renders the template into it.
  const hook = router.readsBody && sentBody !== null ? promptHooks.get(resolver) : undefined;
  if (hook !== undefined) return routePrompted(hook, router, input, sentBody!);
  if (needsParams(input.ctx, router, sentBody)) return input.ctx.json().then((params) => router.route(inferenceRequest(input, sentBody, params)));
  return router.route(inferenceRequest(input, sentBody, undefined));
}

async function routePrompted(hook: PromptHook, router: LoadedRouter, input: RouteInput, sentBody: Buffer): Promise<Outcome> {
  const prompted = await hook(input.ctx, router.configId, sentBody);
  if (prompted !== null) return router.route(inferenceRequest(input, prompted.rawBody, prompted.params));
  const params = needsParams(input.ctx, router, sentBody) ? await input.ctx.json() : undefined;
  return router.route(inferenceRequest(input, sentBody, params));
}

/** Parse only when a rule reads the body or the endpoint's rules must be checked (ARCHITECTURE §4.3). */
function needsParams(ctx: InferenceContext, router: LoadedRouter, rawBody: Buffer | null): boolean {
  if (rawBody === null) return false;
  return ctx.route?.validateBody === 'always' || (router.readsBody && rawBody.length > 0);
}

function inferenceRequest(input: RouteInput, rawBody: Buffer | null, params: unknown): InferenceRequest {
  const ctx = input.ctx;
  return {
    ctx,
    method: input.method,
    upstreamPath: input.upstreamPath,
    rawBody,
    params,
    metadata: input.metadata,
    url: { pathname: input.pathname },
    signal: input.signal,
    timeoutOverrideMs: input.timeoutOverrideMs,
    headerProvider: headerString(ctx, PROVIDER_HEADER),
    headerCustomHost: headerString(ctx, CUSTOM_HOST_HEADER),
    bearerToken: bearerToken(ctx),
  };
}

/** The router the request's headers name: x-gateway-config, else x-gateway-provider, else a virtual key. */
export function resolveRouter(ctx: Pick<InferenceContext, 'headers'>, resolver: ConfigResolver): LoadedRouter {
  const config = headerString(ctx, CONFIG_HEADER);
  if (config !== null) return resolver.fromConfigHeader(config);
  const provider = headerString(ctx, PROVIDER_HEADER);
  if (provider !== null) return resolver.fromProviderHeaders(provider, headerString(ctx, CUSTOM_HOST_HEADER));
  const virtualKey = headerString(ctx, VIRTUAL_KEY_HEADER);
  if (virtualKey !== null) return resolver.fromVirtualKey(virtualKey);
  throw new GatewayError('missing_provider', undefined, PROVIDER_HEADER);
}

function headerString(ctx: Pick<InferenceContext, 'headers'>, name: string): string | null {
  const value = ctx.headers[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

function bearerToken(ctx: Pick<InferenceContext, 'headers'>): string | null {
  const value = ctx.headers.authorization;
  if (typeof value !== 'string') return null;
  const match = /^Bearer\s+(\S.*)$/i.exec(value);
  return match ? match[1].trim() : null;
}

/** `/v1/chat/completions?x=1` → `/chat/completions?x=1`: the part after the gateway's version segment. */
function upstreamPathOf(ctx: RequestContext): string {
  const path = ctx.path.startsWith('/v1/') ? ctx.path.slice(3) : ctx.path;
  return ctx.rawQuery === '' ? path : `${path}?${ctx.rawQuery}`;
}
