// The per-request context handed to every handler. A plain class with fields: cheap to build, and
// the costly parts (query object, abort signal, body, JSON) are created only when first asked for.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { ApiKeyRecord } from '../store/api-key-store.ts';
import { newRequestRecord, newTraceId, type RequestRecord } from '../core/request-record.ts';
import { readRequestBody } from './body.ts';
import { GatewayError } from '../core/errors.ts';
import { MAX_BODY_DEPTH, nestsDeeperThan } from '../../compiler/config/json-depth.ts';
import {
  CACHE_FORCE_REFRESH_HEADER,
  CACHE_NAMESPACE_HEADER,
  FORWARD_HEADERS_HEADER,
  isValidTraceId,
  METADATA_HEADER,
  type Metadata,
  NO_METADATA,
  parseCacheForceRefresh,
  parseCacheNamespace,
  parseForwardHeaders,
  parseMetadata,
  parseRequestTimeout,
  refuseUnknownGatewayHeaders,
  REQUEST_TIMEOUT_HEADER,
  TRACE_ID_HEADER,
} from '../core/gateway-headers.ts';
import type { RouteParams, RouteSpec } from './match.ts';
import type { GatewayResponse } from './gateway-response.ts';
import { parseQuery, validateBody, type ValidatorRegistry, validateQuery } from '../core/validate.ts';
import { parseJsonBody } from '../core/json-body.ts';

/** Settings shared by every request of one server; one object, referenced, never copied. */
export interface RequestSettings {
  maxBodyBytes: number;
  validators: ValidatorRegistry | null;
}

const NO_PARAMS: RouteParams = Object.freeze({}) as RouteParams;
const NO_QUERY: Readonly<Record<string, unknown>> = Object.freeze({});

export class RequestContext {
  readonly req: IncomingMessage;
  readonly res: GatewayResponse;
  readonly method: string;
  /** Path without the query string, exactly as sent (not percent-decoded). */
  readonly path: string;
  /** Query string without the `?`; empty when absent. */
  readonly rawQuery: string;
  readonly headers: IncomingHttpHeaders;
  readonly traceId: string;
  /** Set when the client sent an unusable trace id; the dispatcher answers 400 with it. */
  readonly traceIdError: GatewayError | null;
  readonly startedAt: number;
  /** This request's log record: filled as the request goes, written once its response is finished. */
  readonly record: RequestRecord;

  route: RouteSpec | null = null;
  /** Named groups of the route pattern, raw (not percent-decoded). */
  params: RouteParams = NO_PARAMS;
  /** The authenticated key; null on routes with `auth: 'none'`. */
  apiKey: ApiKeyRecord | null = null;
  metadata: Metadata = NO_METADATA;
  /** From x-gateway-request-timeout; it overrides the config's request_timeout. */
  requestTimeoutMs: number | null = null;
  /** Lower-cased names from x-gateway-forward-headers. */
  forwardHeaders: readonly string[] = [];
  cacheForceRefresh = false;
  cacheNamespace: string | null = null;
  /** True once the client connection closed before the response finished. */
  clientGone = false;
  /**
   * The route's run (see `routed`). A client that leaves while it goes on has its record wait for the
   * run to give up, so what routing learnt (the target, what the provider was sent) is in the record.
   */
  private routing: Promise<unknown> | null = null;

  private readonly settings: RequestSettings;
  private queryValue: Readonly<Record<string, unknown>> | null = null;
  private abortController: AbortController | null = null;
  private bodyPromise: Promise<Buffer> | null = null;
  private jsonPromise: Promise<unknown> | null = null;

  constructor(req: IncomingMessage, res: GatewayResponse, settings: RequestSettings) {
    this.req = req;
    this.res = res;
    this.settings = settings;
    this.method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    this.path = q === -1 ? url : url.slice(0, q);
    this.rawQuery = q === -1 ? '' : url.slice(q + 1);
    this.headers = req.headers;
    this.startedAt = performance.now();

    const sent = req.headers[TRACE_ID_HEADER];
    if (typeof sent !== 'string' || sent === '') {
      this.traceId = newTraceId();
      this.traceIdError = null;
    } else if (isValidTraceId(sent)) {
      this.traceId = sent;
      this.traceIdError = null;
    } else {
      this.traceId = newTraceId();
      this.traceIdError = new GatewayError('invalid_header', `${TRACE_ID_HEADER} must be at most 256 printable ASCII characters.`, TRACE_ID_HEADER);
    }
    res.traceId = this.traceId;
    this.record = newRequestRecord(this.traceId, this.method, this.path);
    res.record = this.record;
    res.startedAt = this.startedAt;
    res.watchClose(this);
  }

  /** Parses the x-gateway-* option headers; throws `invalid_header` on the first bad one. */
  readGatewayHeaders(): void {
    const h = this.headers;
    refuseUnknownGatewayHeaders(this.req.rawHeaders);
    this.metadata = parseMetadata(h[METADATA_HEADER] as string | undefined);
    this.requestTimeoutMs = parseRequestTimeout(h[REQUEST_TIMEOUT_HEADER] as string | undefined);
    this.forwardHeaders = parseForwardHeaders(h[FORWARD_HEADERS_HEADER] as string | undefined);
    this.cacheForceRefresh = parseCacheForceRefresh(h[CACHE_FORCE_REFRESH_HEADER] as string | undefined);
    this.cacheNamespace = parseCacheNamespace(h[CACHE_NAMESPACE_HEADER] as string | undefined);
    this.record.metadata = this.metadata;
  }

  /** Query parameters; after a route's query validator ran, numbers and booleans are coerced. */
  get query(): Readonly<Record<string, unknown>> {
    if (this.queryValue === null) this.queryValue = this.rawQuery === '' ? NO_QUERY : parseQuery(this.rawQuery);
    return this.queryValue;
  }

  /** Runs the route's query validator (if any) and keeps the coerced result. */
  validateQuery(): void {
    const name = this.route?.queryValidator;
    if (name === undefined || this.settings.validators === null) return;
    this.queryValue = validateQuery(this.settings.validators.get(name), this.query);
  }

  /** Fires when the client goes away before the response is finished. */
  get signal(): AbortSignal {
    if (this.abortController === null) {
      this.abortController = new AbortController();
      if (this.clientGone) this.abortController.abort(clientGoneReason());
    }
    return this.abortController.signal;
  }

  /** The whole body, read once; 413 `body_too_large` past the server's limit. */
  readBody(): Promise<Buffer> {
    if (this.bodyPromise === null) this.bodyPromise = readRequestBody(this.req, this.settings.maxBodyBytes);
    return this.bodyPromise;
  }

  /** The body parsed as JSON once (400 `invalid_json`), checked by the route's body validator if it has one. */
  json(): Promise<unknown> {
    if (this.jsonPromise === null) this.jsonPromise = this.parseJson();
    return this.jsonPromise;
  }

  private async parseJson(): Promise<unknown> {
    const value = parseJsonBody(await this.readBody());
    if (nestsDeeperThan(value, MAX_BODY_DEPTH)) throw new GatewayError('json_too_deep', `The request body nests more than ${MAX_BODY_DEPTH} levels of arrays and objects.`);
    const name = this.route?.bodyValidator;
    if (name !== undefined && this.settings.validators !== null) validateBody(this.settings.validators.get(name), value);
    return value;
  }

  /** Notes the route's run (a router's pipeline) for `clientClosed`, and returns it. */
  routed<T>(run: Promise<T>): Promise<T> {
    this.routing = run;
    return run;
  }

  /** Marks the client as gone and fires the signal; called when the response closes unfinished. */
  clientClosed(): void {
    if (this.clientGone) return;
    this.clientGone = true;
    this.abortController?.abort(clientGoneReason());
    const routing = this.routing;
    if (routing === null) return;
    // Settled once the stages have seen the run end (they record it as it unwinds); never rejects.
    const ran = routing.then(nothing, nothing);
    const before = this.record.settling;
    this.record.settling = before === null ? ran : Promise.all([before, ran]).then(nothing);
  }
}

function nothing(): void {}

function clientGoneReason(): Error {
  return new DOMException('The client closed the connection.', 'AbortError');
}
