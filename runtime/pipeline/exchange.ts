// The Exchange: one request as routing and the stages see it. It carries the gateway options the
// server parsed once (never the HTTP context: nothing below the server reads raw client headers),
// the router's plan, the caller's identity, the log record being filled, and per-stage state.
// A live request, a gateway-managed batch line and an emulated Responses call each build one and
// run it through the same pipeline.
import type { Metadata } from '../core/gateway-headers.ts';
import type { RoutePlan } from '../core/plan.ts';
import type { EndpointKind, KeptThinking, ProviderOptions } from '../providers/types.ts';
import type { RoutedRequest } from '../router/router-runtime.ts';
import type { RequestRecord } from '../core/request-record.ts';
import type { SendProgress } from '../upstream/types.ts';

/** What the server parsed of the x-gateway-* option headers (RequestContext, or a stored request's headers). */
export interface ParsedGatewayHeaders {
  traceId: string;
  metadata: Metadata;
  /** x-gateway-request-timeout: wins over the config's request_timeout. */
  requestTimeoutMs: number | null;
  /** Lower-cased names from x-gateway-forward-headers. */
  forwardHeaders: readonly string[];
  cacheForceRefresh: boolean;
  cacheNamespace: string | null;
}

/** The x-gateway-* options and the few client headers that may go upstream, parsed once by the server. */
export interface GatewayOptions extends ParsedGatewayHeaders {
  /** x-gateway-provider. */
  provider: string | null;
  /** x-gateway-custom-host. */
  customHost: string | null;
  /** x-gateway-virtual-key. */
  virtualKey: string | null;
  /** The token of `Authorization: Bearer …`: the credential of leaves that set no api_key. */
  bearerToken: string | null;
  /** Provider settings sent as headers (x-gateway-clouda-resource-name, …), under their config names. */
  providerOptions: ProviderOptions;
  /**
   * The client headers that may reach a provider, lower-cased: content-type and accept always, the
   * W3C traceparent, and every header a config leaf's forward_headers or x-gateway-forward-headers
   * names. The transport picks from these; it never sees the client's header map. With tracing on,
   * the attempt-trace stage replaces `traceparent` with each attempt's own span.
   */
  passedHeaders: Record<string, string>;
  /** The client headers the route's guardrail checks read (a jwt check's headerKey), lower-cased; never sent upstream. */
  checkHeaders: Record<string, string>;
  /**
   * A custom-host or provider-option header came on a route with a target whose provider and options
   * are known only per call (a virtual key, a slug): the transport judges them then
   * (runtime/inference/unread-headers.ts). False on every other request, which pays nothing for it.
   */
  headersJudgedPerCall: boolean;
  /**
   * A WebSocket handshake on the pass-through (a realtime API): its `sec-websocket-*` headers, sent to
   * the provider with the upgrade. Null for any other request.
   */
  webSocket: Record<string, string> | null;
}

/** Who sent the request: the gateway API key's identity (never its secret). */
export interface Caller {
  keyId: string;
  workspaceId: string;
  organisationId: string;
}

/** The upstream try the transport began last: what a request its client left is logged and charged with. */
export interface UpstreamTry extends SendProgress {
  leafPath: string;
  provider: string;
  /** Tries of this leaf so far in the request (its first, then retries). */
  tries: number;
  /** This leaf's `override_params`: what it sends instead of the request's parameters (its model, an image's size). */
  overrides: Readonly<Record<string, unknown>>;
  /**
   * The vendor-shaped usage a mapped stream's provider reported, once the stream ended: the messages
   * API and the clouds report usage whether or not the client asked for the usage chunk, and a
   * provider the gateway asked for the chunk on the client's behalf sends it
   * (providers/shared/stream-usage.ts), so the log need not estimate it. Null until then.
   */
  reportedUsage: unknown;
  /** The signed thinking a translation handed over with its answer's tool calls (turn-memory/kept-thinking-memory.ts); null when none. */
  keptThinking?: KeptThinking[] | null;
}

/** Where the exchange came from: a client over HTTP, a line of a gateway-managed batch, or the chat call behind an emulated Responses request. */
export type ExchangeSource = 'http' | 'batch' | 'responses';

export interface Exchange extends RoutedRequest {
  readonly source: ExchangeSource;
  readonly endpoint: EndpointKind;
  /** The route's operationId (createChatCompletion, passThroughPost, createFile, …); null for one made without a route. */
  readonly operationId: string | null;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path after `/v1`, with the query string: appended to the provider's base URL. */
  upstreamPath: string;
  /** The body as it goes upstream (null for bodiless methods); a stage that rewrites the body sets both this and `params`. */
  rawBody: Buffer | null;
  /** The parsed body once read (see `json`), else undefined. */
  params: unknown;
  readonly options: GatewayOptions;
  readonly plan: RoutePlan;
  readonly caller: Caller | null;
  /** The request's log record; stages add what they know (usage, cache status, hook results, …). */
  readonly record: RequestRecord;
  /** Per-stage state, keyed by stage name. */
  readonly state: Map<string, unknown>;
  /**
   * Called once the answer's token usage (and cost) is in the record, when it completed: what
   * limits charge after the answer. Null until a stage needs it; the log stage meters the answer
   * when a listener is set, even with the request log off.
   */
  afterUsage: Array<(record: RequestRecord) => void> | null;
  /** Null until the transport begins a try; one object per exchange, updated by each try. */
  upstreamTry: UpstreamTry | null;
  /** Parses the body once (400 `invalid_json`; the route's body validator applies), stores it in `params` and returns it. */
  json(): Promise<unknown>;
}
