// Gateway options for an exchange: the x-gateway-* values the server already parsed, plus the
// routing and provider headers, read here once. The client headers that may reach a provider are
// copied out by name, so nothing below this point reads the client's header map.
import type { IncomingHttpHeaders } from 'node:http';
import { CUSTOM_HOST_HEADER, FORWARD_HEADERS_HEADER, PROVIDER_HEADER, VIRTUAL_KEY_HEADER } from '../core/gateway-headers.ts';
import { canonicalProvider } from '../../compiler/config/providers.ts';
import { headerOptions, type OptionReader } from '../providers/header-options.ts';
import { GatewayError } from '../core/errors.ts';
import { hasKeys } from '../core/has-keys.ts';
import { webSocketHandshake } from '../core/web-socket.ts';
import type { GatewayOptions, ParsedGatewayHeaders } from './exchange.ts';

/** Client headers every upstream call may carry, whatever the config says. */
export const ALWAYS_PASSED_HEADERS: readonly string[] = ['content-type', 'accept', 'traceparent', 'tracestate', 'x-cloudb-ai-llm-request-type'];

/**
 * Which routing headers some target of a route reads: each fills what a target leaves open.
 * `x-gateway-provider` the provider of a target naming neither a provider nor a virtual key,
 * `x-gateway-virtual-key` the integration of one naming no provider, key or virtual key, and
 * `x-gateway-custom-host` the base URL of one with no custom_host of its own.
 */
export interface RoutingHeaderUse {
  provider: boolean;
  virtualKey: boolean;
  customHost: boolean;
}

/** A route whose providers come from the routing headers themselves reads them all. */
export const EVERY_ROUTING_HEADER: RoutingHeaderUse = Object.freeze({ provider: true, virtualKey: true, customHost: true });

/** What a route reads of a client's headers, known when its router is built (runtime/inference/routers.ts). */
export interface RouteHeaderUse {
  /** Every header name some leaf forwards (forward_headers): copied out of the client's headers. */
  forwardedHeaders: readonly string[];
  /** Header names the route's checks read (a jwt check's headerKey): copied out for them, never sent upstream. */
  checkHeaders: readonly string[];
  /** The route's targets as provider-option headers are checked against them; null: a target's provider is known only per request (the transport checks then). */
  optionReaders: readonly OptionReader[] | null;
  /** The routing headers some target reads: one no target reads would have no effect and is refused. */
  routingHeaders: RoutingHeaderUse;
  /** Headers the adapter of every target sets itself (compiler/config/adapter-headers.ts): forwarding one would have no effect and is refused. */
  adapterSetHeaders: ReadonlySet<string>;
}

export function gatewayOptions(headers: IncomingHttpHeaders, parsed: ParsedGatewayHeaders, route: RouteHeaderUse): GatewayOptions {
  const named = headerString(headers, PROVIDER_HEADER);
  // `OpenAI` and `openai` are the vendor: echoed, recorded and matched by limit policies as `vendor`.
  const provider = named === null ? null : canonicalProvider(named);
  const customHost = headerString(headers, CUSTOM_HOST_HEADER);
  const virtualKey = headerString(headers, VIRTUAL_KEY_HEADER);
  if (provider !== null || customHost !== null || virtualKey !== null) refuseUnreadRouting(provider, customHost, virtualKey, route.routingHeaders);
  if (route.adapterSetHeaders.size > 0) refuseOverwrittenForwards(parsed.forwardHeaders, route.adapterSetHeaders);
  const providerOptions = headerOptions(headers, route.optionReaders);
  return {
    traceId: parsed.traceId,
    metadata: parsed.metadata,
    requestTimeoutMs: parsed.requestTimeoutMs,
    forwardHeaders: parsed.forwardHeaders,
    cacheForceRefresh: parsed.cacheForceRefresh,
    cacheNamespace: parsed.cacheNamespace,
    provider,
    customHost,
    virtualKey,
    bearerToken: bearerToken(headers),
    providerOptions,
    passedHeaders: passedHeaders(headers, route.forwardedHeaders, parsed.forwardHeaders),
    checkHeaders: route.checkHeaders.length === 0 ? NO_HEADERS : passedHeaders(headers, route.checkHeaders, NO_NAMES, NO_NAMES),
    // Where every target names its provider, headerOptions and refuseUnreadRouting judged them already.
    headersJudgedPerCall: route.optionReaders === null && (customHost !== null || hasKeys(providerOptions)),
    webSocket: webSocketHandshake(headers),
  };
}

/**
 * Two ways of naming the provider at once, or a routing header no target of the route reads (every
 * target names its own provider, say): either would be accepted and have no effect.
 */
function refuseUnreadRouting(provider: string | null, customHost: string | null, virtualKey: string | null, routing: RoutingHeaderUse): void {
  if (provider !== null && virtualKey !== null) {
    throw new GatewayError('invalid_header', `${PROVIDER_HEADER} and ${VIRTUAL_KEY_HEADER} are two ways of naming the provider (a virtual key holds its provider): send one.`, VIRTUAL_KEY_HEADER);
  }
  const unread = provider !== null && !routing.provider ? PROVIDER_HEADER : virtualKey !== null && !routing.virtualKey ? VIRTUAL_KEY_HEADER : customHost !== null && !routing.customHost ? CUSTOM_HOST_HEADER : null;
  if (unread === null) return;
  const because = unread === CUSTOM_HOST_HEADER ? 'every target of this route sets its own custom_host' : 'every target of this route names its own provider or virtual key';
  throw new GatewayError('invalid_header', `${unread} would have no effect: ${because}.`, unread);
}

/** A header x-gateway-forward-headers names that every target's adapter sets itself: the client's value would never be sent. */
function refuseOverwrittenForwards(forwarded: readonly string[], setByAdapters: ReadonlySet<string>): void {
  const overwritten = forwarded.find((name) => setByAdapters.has(name));
  if (overwritten === undefined) return;
  throw new GatewayError('invalid_header', `${FORWARD_HEADERS_HEADER} names ${JSON.stringify(overwritten)}, which would have no effect: every target of this route sets it itself (its provider's adapter does, on every call).`, FORWARD_HEADERS_HEADER);
}

/** No header set by every adapter: a route with a target whose provider is known only per request. */
export const NO_ADAPTER_SET_HEADERS: ReadonlySet<string> = Object.freeze(new Set<string>());

const NO_NAMES: readonly string[] = [];
const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

function passedHeaders(headers: IncomingHttpHeaders, byConfig: readonly string[], byHeader: readonly string[], always: readonly string[] = ALWAYS_PASSED_HEADERS): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const list of [always, byConfig, byHeader]) {
    for (const name of list) {
      const value = headers[name];
      if (value !== undefined) passed[name] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return passed;
}

export function headerString(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

function bearerToken(headers: IncomingHttpHeaders): string | null {
  const value = headers.authorization;
  if (typeof value !== 'string') return null;
  const match = /^Bearer\s+(\S.*)$/i.exec(value);
  return match ? match[1].trim() : null;
}
