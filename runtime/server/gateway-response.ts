// Every response carries x-gateway-trace-id. Setting it with setHeader as soon as the request
// starts would put node:http on its slow path (writeHead then merges the header object one
// setHeader at a time), so it joins the writeHead header object instead: here, once, for every writer.
import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http';
import { ServerResponse } from '../core/node-http.ts';
import { TRACE_ID_HEADER } from '../core/gateway-headers.ts';
import { gatewayReasonPhrase } from '../core/gateway-statuses.ts';
import type { BodyTap, TappableResponse } from '../core/body-tap.ts';
import type { RequestRecord } from '../core/request-record.ts';
import type { RequestSpan } from '../telemetry/tracing.ts';

/** Told when the client goes away before its response finished (the request context). */
export interface ClientWatcher {
  clientClosed(): void;
}

/** Shared by every response of one server: set when it starts draining, and told when each response starts and is done. */
export interface DrainState {
  draining: boolean;
  /** Called once per response that will be told done (its close is watched). */
  responseStarted(): void;
  /** Called once per response when it closed (finished or cut short). */
  responseDone(res: GatewayResponse): void;
}

export class GatewayResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> implements TappableResponse {
  /** Set by the request context; null until then (and for requests that never got one). */
  traceId: string | null = null;
  /** The request's log record (set with the trace id). */
  record: RequestRecord | null = null;
  /** performance.now() when the request arrived, and when the first body byte went out (0: not yet). */
  startedAt = 0;
  firstByteAt = 0;
  /** Told of every body byte (usage metering): runtime/pipeline/body-tap.ts. */
  bodyTap: BodyTap | null = null;
  /** The request's server span when tracing is on. */
  span: RequestSpan | null = null;
  /** Fields, not listeners or symbols: one `close` listener serves them (watchClose). */
  watcher: ClientWatcher | null = null;
  drain: DrainState | null = null;
  /** The response to a WebSocket handshake, on the socket node:http handed over with it (server.ts onUpgrade). */
  upgraded = false;
  /**
   * A status and headers chosen for an answer whose body is still to come (deferHead), written with
   * its first byte: until then the answer can still become an error (a body that failed first).
   * node:http itself writes a head only with the first body byte, so the client sees no difference.
   */
  #deferredStatus = 0;
  #deferredHeaders: OutgoingHttpHeaders | null = null;

  /** Starts telling `watcher` when the client goes before the response is finished. */
  watchClose(watcher: ClientWatcher): void {
    this.watcher = watcher;
    this.on('close', onClose);
    this.drain?.responseStarted();
  }

  override writeHead(statusCode: number, messageOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[], maybeHeaders?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this {
    // A head written outright (an error answered instead) replaces one chosen for later.
    this.#deferredHeaders = null;
    // A server draining for shutdown closes each connection after its response instead of keeping it.
    if (this.drain?.draining === true) this.shouldKeepAlive = false;
    const traceId = this.traceId;
    if (traceId !== null) {
      const headers = typeof messageOrHeaders === 'string' ? maybeHeaders : messageOrHeaders;
      if (headers !== undefined && !Array.isArray(headers)) headers[TRACE_ID_HEADER] = traceId;
      else if (!this.hasHeader(TRACE_ID_HEADER)) this.setHeader(TRACE_ID_HEADER, traceId);
    }
    if (typeof messageOrHeaders === 'string') return super.writeHead(statusCode, messageOrHeaders, maybeHeaders);
    const phrase = gatewayReasonPhrase(statusCode);
    return phrase === undefined ? super.writeHead(statusCode, messageOrHeaders) : super.writeHead(statusCode, phrase, messageOrHeaders);
  }

  /** Chooses the status and headers, to be written with the first body byte (or the end). */
  deferHead(statusCode: number, headers: OutgoingHttpHeaders): void {
    this.#deferredStatus = statusCode;
    this.#deferredHeaders = headers;
  }

  /** Forgets a deferred head no byte has followed, so another answer can be sent; false when it was written. */
  dropDeferredHead(): boolean {
    if (this.#deferredHeaders === null) return false;
    this.#deferredHeaders = null;
    return true;
  }

  #writeDeferredHead(): void {
    this.writeHead(this.#deferredStatus, this.#deferredHeaders!);
  }

  /** The head alone, now: a deferred one included (a 101, which has no body to bring it). */
  override flushHeaders(): void {
    if (this.#deferredHeaders !== null) this.#writeDeferredHead();
    if (this.firstByteAt === 0) this.firstByteAt = performance.now();
    super.flushHeaders();
  }

  // write and end keep node:http's signatures; they only note the first byte and feed the tap. The
  // tap is fed after the bytes went to the socket: the client does not wait for usage metering (it
  // still completes before 'finish', which is emitted asynchronously, so the record has it).
  override write(chunk: any, encodingOrCallback?: any, callback?: any): boolean {
    if (this.#deferredHeaders !== null) this.#writeDeferredHead();
    if (this.firstByteAt === 0) this.firstByteAt = performance.now();
    const written = super.write(chunk, encodingOrCallback, callback);
    if (this.bodyTap !== null && (typeof chunk === 'string' || Buffer.isBuffer(chunk))) this.bodyTap.write(chunk);
    return written;
  }

  override end(chunk?: any, encodingOrCallback?: any, callback?: any): this {
    if (this.#deferredHeaders !== null) this.#writeDeferredHead();
    const hasBody = typeof chunk === 'string' || Buffer.isBuffer(chunk);
    if (hasBody && this.firstByteAt === 0) this.firstByteAt = performance.now();
    const tap = this.bodyTap;
    if (tap === null) return super.end(chunk, encodingOrCallback, callback);
    this.bodyTap = null;
    // A response whose client already went is not a completed body.
    const complete = !this.destroyed;
    super.end(chunk, encodingOrCallback, callback);
    if (hasBody) tap.write(chunk);
    if (complete) tap.end();
    else tap.brokeOff();
    return this;
  }
}

// One shared function instead of a closure per response.
function onClose(this: GatewayResponse): void {
  if (!this.writableFinished) {
    // Cut short (the client left, or the provider's stream broke): what the tap saw is told before
    // the record is handed on, so the usage generated until then is logged and charged.
    const tap = this.bodyTap;
    if (tap !== null) {
      this.bodyTap = null;
      tap.brokeOff();
    }
    this.watcher?.clientClosed();
  }
  this.drain?.responseDone(this);
}
