// The HTTP shell: node:http server, route dispatch, authentication, and the rule that whatever a
// handler throws becomes the gateway error body and never reaches the process.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer, STATUS_CODES } from '../core/node-http.ts';
import type { AddressInfo, Socket } from 'node:net';
import type { ApiKeyRing } from './auth.ts';
import { API_KEY_HEADER, TRACE_ID_HEADER } from '../core/gateway-headers.ts';
import { checkDeclaredLength, ClientAbortedError, refuseContentEncoding, refuseUnreadBody } from './body.ts';
import { RequestContext, type RequestSettings } from './context.ts';
import { GatewayError, type GatewayErrorCode } from '../core/errors.ts';
import { describeError, type GatewayLogger } from '../core/log.ts';
import { RouteTable, type RouteSpec } from './match.ts';
import { type DrainState, GatewayResponse } from './gateway-response.ts';
import { sendGatewayError } from './respond.ts';
import { newTraceId, type RequestRecord, type RouteKind } from '../core/request-record.ts';
import type { Tracing } from '../telemetry/tracing.ts';
import type { Traffic } from '../telemetry/metrics.ts';
import type { ValidatorRegistry } from '../core/validate.ts';
import { StoreUnavailableError, UnstorableTextError } from '../store/sql/sql-database.ts';
import { RETRY_AFTER_HEADER } from '../core/retry-after-headers.ts';
import { envInteger } from '../core/env-integer.ts';
import { asksForWebSocket, HALF_OPEN_GRACE_MS } from '../core/web-socket.ts';

export type Handler = (ctx: RequestContext) => Promise<void>;

export interface ServerTimeouts {
  /**
   * Idle keep-alive. Above the idle timeouts of common load balancers (AWS ALB and nginx: 60 s), so
   * the balancer always closes an idle connection first and never sends a request on a socket the
   * gateway is closing at that moment, which clients would see as a sporadic 502.
   */
  keepAliveMs: number;
  /** Time to receive the request headers; bounds slow-header (slowloris) clients. */
  headersMs: number;
  /** Time to receive the whole request, body included; generous for large audio uploads. */
  requestMs: number;
  /** How long close() waits for in-flight requests before cutting their connections. */
  drainMs: number;
}

/** How long a closed server waits for the records of its last responses (async hooks' checks time out sooner). */
const RECORDS_WAIT_MS = 5000;
/** Idle time before a client connection's first TCP keepalive probe (undici's default for its own). */
const TCP_KEEPALIVE_DELAY_MS = 60_000;
/** The same store failure answered 503 is logged at most once in this long. */
const STORE_FAILURE_LOG_EVERY_MS = 60_000;

export const DEFAULT_TIMEOUTS: ServerTimeouts = { keepAliveMs: 75_000, headersMs: 30_000, requestMs: 300_000, drainMs: 10_000 };
/** Room for inline configs in x-gateway-config, which outgrow Node's 16 KiB default. */
export const DEFAULT_MAX_HEADER_BYTES = 64 * 1024;
/** Fits the largest common provider upload (25 MB audio) with multipart overhead. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
/** Bounds of GATEWAY_MAX_BODY_BYTES: a body is held in memory whole (a retry sends it again). */
export const MIN_MAX_BODY_BYTES = 2 * 1024 * 1024;
export const MAX_MAX_BODY_BYTES = 1024 * 1024 * 1024;

/**
 * GATEWAY_MAX_BODY_BYTES: the largest request body the server takes. Raised for what the default
 * refuses and providers accept (a chat of many images; a vendor vision request may carry 50 MB).
 */
export function maxBodyBytesFromEnv(env: NodeJS.ProcessEnv): number {
  return envInteger(env, 'GATEWAY_MAX_BODY_BYTES', DEFAULT_MAX_BODY_BYTES, MIN_MAX_BODY_BYTES, MAX_MAX_BODY_BYTES);
}

export interface GatewayOptions {
  routes: readonly RouteSpec[];
  keyRing: ApiKeyRing;
  /** Required when any route names a body or query validator. */
  validators?: ValidatorRegistry | null;
  logger: GatewayLogger;
  maxBodyBytes?: number;
  maxHeaderBytes?: number;
  timeouts?: Partial<ServerTimeouts>;
  /** Told of every request's finished log record (the request log, metrics). Never awaited. */
  onRecord?: (record: RequestRecord) => void;
  /** OpenTelemetry tracing; null (the default) when off. */
  tracing?: Tracing | null;
}

export interface Gateway {
  readonly server: Server;
  readonly routes: RouteTable;
  readonly ready: boolean;
  registerHandler(name: string, handler: Handler): void;
  /** Health turns 200 only after this; start.ts calls it once setup and listen are done. */
  markReady(): void;
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting, lets in-flight requests finish (up to drainMs), then cuts what is left. */
  close(): Promise<void>;
  /** What is being served now, read when /metrics is scraped. */
  traffic(): Traffic;
}

export function createGateway(options: GatewayOptions): Gateway {
  const routes = new RouteTable(options.routes);
  const validators = options.validators ?? null;
  if (validators !== null) validators.assertCovers(options.routes);
  else {
    const needing = options.routes.find((r) => r.bodyValidator !== undefined || r.queryValidator !== undefined);
    if (needing !== undefined) throw new Error(`route ${needing.operationId} needs generated validators, but none were given`);
  }
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const handlerNames = new Set(options.routes.map((r) => r.handler));
  const handlers = new Map<string, Handler>();
  const settings: RequestSettings = { maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, validators };
  const { keyRing, logger } = options;
  let ready = false;
  let closing: Promise<void> | null = null;
  /** The sockets of WebSocket handshakes and sessions (onUpgrade), with their responses: a stop cuts them at its deadline. */
  const tunnels = new Map<Socket, GatewayResponse>();
  /** Responses not closed yet: counted where the drain is told of them, which every request's is. */
  let open = 0;
  // Every response checks it as it writes its head, so a drain closes each connection after its response.
  const onRecord = options.onRecord ?? null;
  const tracing = options.tracing ?? null;
  // Responses whose records are not handed on yet: a stop waits for them (closeAllConnections cuts a
  // response's socket, and the response tells its close after the server's own close).
  let unrecorded = 0;
  let allRecorded: (() => void) | null = null;
  const recorded = (): void => {
    if (--unrecorded === 0) allRecorded?.();
  };
  const drain: DrainState = {
    draining: false,
    responseStarted() {
      unrecorded++;
      open++;
    },
    responseDone(res) {
      open--;
      const record = res.record;
      if (record === null || (onRecord === null && res.span === null)) {
        recorded();
        return;
      }
      // A client that left before any status line was sent gets nginx's 499 "client closed request".
      record.status = res.headersSent ? res.statusCode : 499;
      const now = performance.now();
      record.latencyMs = round(now - res.startedAt);
      record.ttfbMs = res.firstByteAt === 0 ? null : round(res.firstByteAt - res.startedAt);
      const write = (): void => {
        try {
          res.span?.end(record);
          onRecord?.(record);
        } catch (err) {
          logger.error('request_record_failed', { trace_id: record.traceId, error: describeError(err) });
        } finally {
          recorded();
        }
      };
      // Async hooks still judging the answer: the record is written with their results.
      if (record.settling === null) write();
      else void record.settling.then(() => {
        record.settling = null;
        write();
      });
    },
  };

  const server = createServer({
    ServerResponse: GatewayResponse,
    keepAliveTimeout: timeouts.keepAliveMs,
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    maxHeaderSize: options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES,
    // TCP keepalive on every client connection, as undici keeps it on the provider's: a client that
    // vanished without a FIN (a phone that lost its network) is found a minute or so after it fell
    // silent instead of holding a WebSocket session, or a stream's socket, until the other side ends it.
    keepAlive: true,
    keepAliveInitialDelay: TCP_KEEPALIVE_DELAY_MS,
    // A handshake with a body is not one: it goes the usual way and dispatch refuses it (nothing would end its body's read).
    shouldUpgradeCallback: (req) => req.method === 'GET' && req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined && asksForWebSocket(req.headers.upgrade),
    // Node checks the two timeouts above only this often (30 s by default), which would double them.
    connectionsCheckingInterval: Math.max(50, Math.min(5000, Math.floor(timeouts.headersMs / 4))),
  });

  async function dispatch(ctx: RequestContext): Promise<void> {
    if (ctx.traceIdError !== null) throw ctx.traceIdError;
    if (hasDotSegment(ctx.path)) throw new GatewayError('route_not_found', 'The path has a "." or ".." segment: no endpoint has one, and a pass-through would send it to the provider, where it could reach above the API\'s base path.');
    const found = routes.match(ctx.method, ctx.path);
    if (found.kind === 'not_found') throw new GatewayError('route_not_found');
    if (found.kind === 'method_not_allowed') {
      ctx.res.setHeader('allow', found.allow.join(', '));
      throw new GatewayError('method_not_allowed', `This endpoint accepts ${found.allow.join(', ')}, not ${ctx.method}.`);
    }
    const route = found.route;
    ctx.route = route;
    ctx.params = found.params;
    const record = ctx.record;
    record.routeKind = routeKindOf(route);
    record.operationId = route.operationId;
    if (route.auth === 'api_key') {
      const key = keyRing.authenticate(ctx.headers[API_KEY_HEADER], ctx.req.socket);
      ctx.apiKey = key;
      record.apiKeyId = key.id;
      record.workspaceId = key.workspaceId;
      record.organisationId = key.organisationId;
    }
    // A handshake came through 'upgrade' (a GET, onUpgrade) and only the pass-through carries it on.
    if (asksForWebSocket(ctx.headers.upgrade) && (!ctx.res.upgraded || route.handler !== 'inference.passthrough')) {
      throw new GatewayError('endpoint_not_supported', 'A WebSocket connection is carried to a provider\'s own path through the pass-through (a realtime API: GET /v1/realtime), not to an endpoint of the gateway, and its handshake is a GET without a body.', 'upgrade');
    }
    ctx.readGatewayHeaders();
    checkDeclaredLength(ctx.req, settings.maxBodyBytes);
    refuseContentEncoding(ctx.req);
    if (route.noBody === true) await refuseUnreadBody(ctx, route.path);
    const handler = handlers.get(route.handler);
    if (handler === undefined) throw new GatewayError('route_not_found', 'This endpoint is not available on this gateway.');
    ctx.validateQuery();
    if (route.bodyValidator !== undefined && route.validateBody === 'always') await ctx.json();
    await handler(ctx);
    if (!ctx.res.headersSent && !ctx.res.destroyed) throw new Error(`handler ${route.handler} returned without responding`);
  }

  // What made the store answer 503, logged: a whole outage also shows in the change feed's and the
  // request log's events, but a failure only some calls meet (a disk that filled fails a file upload,
  // not the small writes) would otherwise be seen by the clients alone.
  let storeFailureLogged = '';
  let storeFailureLoggedAt = -Infinity;
  function storeFailed(ctx: RequestContext, err: StoreUnavailableError): void {
    const now = performance.now();
    if (err.message === storeFailureLogged && now - storeFailureLoggedAt < STORE_FAILURE_LOG_EVERY_MS) return;
    storeFailureLogged = err.message;
    storeFailureLoggedAt = now;
    logger.warn('store_call_failed', { trace_id: ctx.traceId, method: ctx.method, path: ctx.path, error: describeError(err), note: 'answered 503 store_unavailable; the same failure is logged at most once a minute' });
  }

  function fail(ctx: RequestContext, err: unknown): void {
    if (err instanceof GatewayError) {
      sendGatewayError(ctx.res, err);
      return;
    }
    if (err instanceof ClientAbortedError || ctx.clientGone) return;
    if (err instanceof UnstorableTextError) {
      sendGatewayError(ctx.res, new GatewayError('unstorable_text'));
      return;
    }
    // Not a bug of ours: a 503 the client may try again, and a log line for the operator.
    if (err instanceof StoreUnavailableError) {
      storeFailed(ctx, err);
      if (!ctx.res.headersSent) ctx.res.setHeader(RETRY_AFTER_HEADER, '1');
      sendGatewayError(ctx.res, new GatewayError('store_unavailable'));
      return;
    }
    logger.error('request_failed', {
      trace_id: ctx.traceId,
      method: ctx.method,
      path: ctx.path,
      route: ctx.route?.operationId ?? null,
      error: describeError(err),
    });
    sendGatewayError(ctx.res, new GatewayError('internal_error'));
  }

  function onRequest(req: IncomingMessage, res: GatewayResponse): void {
    let ctx: RequestContext;
    try {
      res.drain = drain;
      ctx = new RequestContext(req, res, settings);
      if (tracing !== null) res.span = tracing.requestStarted(ctx.record, traceparentOf(req));
    } catch (err) {
      logger.error('request_setup_failed', { error: describeError(err) });
      res.destroy();
      return;
    }
    dispatch(ctx).catch((err: unknown) => {
      try {
        fail(ctx, err);
      } catch (sendErr) {
        logger.error('error_response_failed', { trace_id: ctx.traceId, error: describeError(sendErr) });
        res.destroy();
      }
    });
  }

  /**
   * WebSocket handshakes (GETs asking for it, shouldUpgradeCallback) arrive here with their socket
   * out of node:http's hands. They take the same path as any request, with a response written to
   * that socket: a refusal or a provider's non-101 answer ends the connection after it, and a 101
   * (runtime/upstream/tunnel.ts) keeps it until the session ends.
   */
  function onUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    socket.on('error', ignoreError);
    if (drain.draining) {
      socket.destroy();
      return;
    }
    let res: GatewayResponse;
    try {
      res = new GatewayResponse(req);
      res.upgraded = true;
      res.shouldKeepAlive = false;
      res.assignSocket(socket);
    } catch (err) {
      logger.error('request_setup_failed', { error: describeError(err) });
      socket.destroy();
      return;
    }
    // A refusal, or the provider's own answer other than 101: the connection ends with it. What the
    // client still sends is read and dropped (unread, it would make the close a reset that can lose
    // the answer), and a client that keeps its half open is cut.
    res.once('finish', () => {
      socket.end();
      socket.resume();
      setTimeout(() => socket.destroy(), HALF_OPEN_GRACE_MS).unref();
    });
    // Frames the client sent right behind its handshake are the session's first bytes.
    if (head.length > 0) socket.unshift(head);
    tunnels.set(socket, res);
    socket.once('close', () => tunnels.delete(socket));
    onRequest(req, res);
  }

  server.on('request', onRequest);
  server.on('upgrade', onUpgrade);
  server.on('clientError', onClientError);
  // CONNECT never reaches 'request'; unanswered, node:http would just drop the socket.
  server.on('connect', onConnect);

  return {
    server,
    routes,
    get ready() {
      return ready && !drain.draining;
    },
    registerHandler(name, handler) {
      if (!handlerNames.has(name)) throw new Error(`no route uses a handler named ${name}`);
      if (handlers.has(name)) throw new Error(`handler ${name} is already registered`);
      handlers.set(name, handler);
    },
    markReady() {
      ready = true;
    },
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    close() {
      if (closing !== null) return closing;
      drain.draining = true;
      closing = new Promise<void>((resolve) => {
        if (!server.listening) {
          resolve();
          return;
        }
        // In-flight requests answer with `connection: close`; idle sockets go as soon as they are idle.
        const sweep = setInterval(() => server.closeIdleConnections(), 100);
        const cut = setTimeout(() => {
          server.closeAllConnections();
          // node:http does not count a WebSocket's socket as one of its connections, but its close waits for it.
          for (const socket of tunnels.keys()) socket.destroy();
        }, timeouts.drainMs);
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(cut);
          if (unrecorded === 0) {
            resolve();
            return;
          }
          // Records of responses cut at the deadline, and of async hooks still judging (each bounded by its own timeout).
          allRecorded = resolve;
          setTimeout(resolve, RECORDS_WAIT_MS).unref();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
    traffic() {
      let sessions = 0;
      for (const res of tunnels.values()) if (res.statusCode === 101 && res.headersSent) sessions++;
      return { inFlight: open, sessions };
    },
  };
}

function ignoreError(): void {}

function traceparentOf(req: IncomingMessage): string | undefined {
  const value = req.headers.traceparent;
  return typeof value === 'string' ? value : undefined;
}

function routeKindOf(route: RouteSpec): RouteKind {
  if (route.handler === 'inference.passthrough') return 'passthrough';
  if (route.handler.startsWith('inference.')) return 'inference';
  if (route.handler.startsWith('health.')) return 'health';
  if (route.handler.startsWith('metrics.')) return 'metrics';
  return 'control';
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

const CLIENT_ERRORS: Record<string, GatewayErrorCode> = {
  HPE_HEADER_OVERFLOW: 'headers_too_large',
  ERR_HTTP_REQUEST_TIMEOUT: 'client_request_timeout',
};

/** CONNECT (a proxy tunnel) is not something the gateway offers: 405 with the error body, then close. */
function onConnect(_req: IncomingMessage, socket: Socket): void {
  const error = new GatewayError('method_not_allowed', 'The gateway is not a proxy: CONNECT is not supported.');
  const body = JSON.stringify(error.toBody());
  socket.on('error', () => undefined);
  socket.end(
    `HTTP/1.1 405 Method Not Allowed\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `${TRACE_ID_HEADER}: ${newTraceId()}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Requests node:http could not parse never reach a handler; answer them with the same error body. */
function onClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  // A request received whole before the bytes that failed (sent behind it on the same connection)
  // is answered first, as HTTP answers in order; the error follows it. Answered now, the error would
  // go out before that answer, or cut it off (a HEAD's answer was lost that way). A request whose own
  // body failed is answered the error now: its handler waits for a body that will not come.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight !== undefined && inFlight !== null && !inFlight.writableFinished) {
    if (inFlight.req.complete) {
      inFlight.once('finish', () => answerClientError(err, socket));
      inFlight.once('close', () => {
        if (!inFlight.writableFinished) socket.destroy();
      });
      return;
    }
    // An answer under way to the request whose body failed cannot be followed by a second status line.
    if (inFlight.headersSent) {
      socket.destroy();
      return;
    }
  }
  answerClientError(err, socket);
}

function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const error = new GatewayError(CLIENT_ERRORS[err.code ?? ''] ?? 'malformed_request');
  const body = JSON.stringify(error.toBody());
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `${TRACE_ID_HEADER}: ${newTraceId()}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  );
}

/** `.` and `..` segments, plain or percent-encoded (`%2e%2e`). */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?:\/|$)/i;

function hasDotSegment(path: string): boolean {
  // Most paths have neither a dot nor a percent sign: no regular expression for them.
  return (path.includes('.') || path.includes('%')) && DOT_SEGMENT.test(path);
}
