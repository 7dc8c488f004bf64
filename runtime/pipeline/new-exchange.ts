// Builds an Exchange. One class, so every exchange has the same shape (one hidden class for V8),
// whether it came over HTTP, from a batch line or from an emulated Responses call.
import type { RoutePlan } from '../core/plan.ts';
import type { EndpointKind } from '../providers/types.ts';
import type { RequestRecord } from '../core/request-record.ts';
import type { Caller, Exchange, ExchangeSource, GatewayOptions, UpstreamTry } from './exchange.ts';

/** Route handler names (generated/routes.ts) → the provider endpoint they call; anything else is a pass-through. */
const ENDPOINTS: Readonly<Record<string, EndpointKind>> = {
  'inference.chat': 'chat',
  'inference.completions': 'completions',
  'inference.embeddings': 'embeddings',
  'inference.audio': 'audio',
  'inference.images': 'images',
  'inference.models': 'models',
};

export function endpointOfHandler(handler: string | null): EndpointKind {
  return handler !== null && Object.hasOwn(ENDPOINTS, handler) ? ENDPOINTS[handler] : 'passthrough';
}

export interface ExchangeInit {
  source: ExchangeSource;
  /** The route's handler name and operationId (null for an exchange made without a route). */
  handler: string | null;
  operationId: string | null;
  method: Exchange['method'];
  upstreamPath: string;
  pathname: string;
  rawBody: Buffer | null;
  options: GatewayOptions;
  plan: RoutePlan;
  caller: Caller | null;
  record: RequestRecord;
  signal: AbortSignal;
  /** Reads and checks the body as JSON (the route's validator applies). */
  readJson: () => Promise<unknown>;
}

class RoutedExchange implements Exchange {
  readonly source: ExchangeSource;
  readonly endpoint: EndpointKind;
  readonly operationId: string | null;
  readonly method: Exchange['method'];
  upstreamPath: string;
  readonly url: { pathname: string };
  rawBody: Buffer | null;
  params: unknown = undefined;
  readonly options: GatewayOptions;
  readonly plan: RoutePlan;
  readonly caller: Caller | null;
  readonly record: RequestRecord;
  readonly signal: AbortSignal;
  readonly metadata: Record<string, string>;
  readonly timeoutOverrideMs: number | null;
  readonly headerProvider: string | null;
  readonly routeIdentity: string;
  patternWork = 0;
  afterUsage: Array<(record: RequestRecord) => void> | null = null;
  upstreamTry: UpstreamTry | null = null;
  #state: Map<string, unknown> | null = null;
  readonly #readJson: () => Promise<unknown>;

  constructor(init: ExchangeInit) {
    this.source = init.source;
    this.endpoint = endpointOfHandler(init.handler);
    this.operationId = init.operationId;
    this.method = init.method;
    this.upstreamPath = init.upstreamPath;
    this.url = { pathname: init.pathname };
    this.rawBody = init.rawBody;
    this.options = init.options;
    this.plan = init.plan;
    this.caller = init.caller;
    this.record = init.record;
    this.signal = init.signal;
    this.metadata = init.options.metadata as Record<string, string>;
    this.timeoutOverrideMs = init.options.requestTimeoutMs;
    this.headerProvider = init.options.provider;
    this.routeIdentity = routeIdentityOf(init.options);
    this.#readJson = init.readJson;
  }

  /** Made on first use: most requests run no stage that keeps state. */
  get state(): Map<string, unknown> {
    return (this.#state ??= new Map());
  }

  json(): Promise<unknown> {
    if (this.params !== undefined) return Promise.resolve(this.params);
    return this.#readJson().then((value) => (this.params = value));
  }
}

/** What the routing headers name, for the circuit of a leaf that reads them (RoutedRequest.routeIdentity). */
function routeIdentityOf(options: GatewayOptions): string {
  if (options.provider === null && options.virtualKey === null && options.customHost === null) return '';
  return `${options.provider ?? ''}\u0001${options.virtualKey ?? ''}\u0001${options.customHost ?? ''}`;
}

export function newExchange(init: ExchangeInit): Exchange {
  return new RoutedExchange(init);
}
