// One upstream exchange on undici's dispatch API. `send` resolves at the status line with the body
// paused, so the router can still choose to forward it, read it (transforms, error mapping) or
// drop it (retry, fallback) before a single body byte moves.
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { SendProgress, UpstreamRequest, UpstreamResponse } from './types.ts';
import {
  ClientClosedError,
  UpstreamDiscardedError,
  UpstreamRequestError,
  beforeResponseError,
  duringBodyError,
} from './errors.ts';
import { endInTurn } from './end-in-turn.ts';
import { WebSocketTunnel } from './tunnel.ts';
import { requestHeadersForUpstream, responseHeadersForClient } from './hop-by-hop.ts';
import { poolFor, poolSettings } from './pools.ts';
import { GatewayError } from '../core/errors.ts';

type DispatchController = Dispatcher.DispatchController;
type ResponseHeaders = Record<string, string | string[] | undefined>;

/**
 * A discarded body this small (by content-length) is drained instead of aborted so the keep-alive
 * socket goes back to the pool; error bodies before a retry are the common case. Bodies of unknown
 * length (SSE) may never end, so they are aborted.
 */
export const DISCARD_DRAIN_LIMIT = 64 * 1024;
/** A drained body that has not ended by then is aborted: a stalled provider must not hold the socket. */
export const DISCARD_DRAIN_TIMEOUT_MS = 1000;

const EMPTY = Buffer.alloc(0);

type Phase = 'awaiting-response' | 'body' | 'ended' | 'failed';
type Consumer = 'undecided' | 'forward' | 'collect' | 'discard';

interface Settler<T> {
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export function send(req: UpstreamRequest): Promise<UpstreamResponse> {
  return new Promise<UpstreamResponse>((resolve, reject) => {
    if (req.signal.aborted) {
      reject(req.signal.reason);
      return;
    }
    let pool;
    try {
      pool = poolFor(req.origin);
    } catch (cause) {
      reject(new UpstreamRequestError(`invalid upstream origin ${JSON.stringify(req.origin)}`, { cause }));
      return;
    }
    const exchange = new UpstreamExchange(req.signal, { resolve, reject }, req.progress ?? null);
    const options: Dispatcher.DispatchOptions = { path: req.path, method: req.method, headers: requestHeadersForUpstream(req.headers), body: req.body };
    // undici writes `connection: upgrade` and `upgrade: websocket` itself.
    if (req.webSocket === true) options.upgrade = 'websocket';
    const limit = req.timeoutMs;
    if (limit !== undefined && limit !== null) {
      options.headersTimeout = limit;
      options.bodyTimeout = limit;
    }
    try {
      pool.dispatch(options, exchange);
    } catch (cause) {
      exchange.onResponseError(null, cause as Error);
    }
  });
}

/**
 * The dispatch handler and the UpstreamResponse handed to the router are one object: the handler
 * callbacks drive the state, the three public body methods pick who consumes it.
 */
class UpstreamExchange implements Dispatcher.DispatchHandler, UpstreamResponse {
  status = 0;
  headers: Record<string, string | string[]> = {};

  #signal: AbortSignal;
  readonly #progress: SendProgress | null;
  #started: Settler<UpstreamResponse> | null;
  #controller: DispatchController | null = null;
  /** Set when we abort before undici handed us a controller (request still queued or connecting). */
  #pendingAbort: Error | null = null;
  /** The reason of an abort we started, so undici's report of it maps back to our own reason. */
  #abortReason: unknown = undefined;

  #phase: Phase = 'awaiting-response';
  #consumer: Consumer = 'undecided';
  #failure: unknown = undefined;
  #declaredLength = -1;
  #chunks: Buffer[] = [];
  #drained = 0;
  #undecidedBytes = 0;
  /** Bytes held for a reader (readAll): bounded by maxBufferedBytes. */
  #collected = 0;
  #res: ServerResponse | null = null;
  #finished: Settler<Buffer | undefined> | null = null;
  /** Who waits for the body's first byte or end (bodyBegun). */
  #begun: Settler<void> | null = null;
  #drainTimer: ReturnType<typeof setTimeout> | undefined = undefined;

  constructor(signal: AbortSignal, started: Settler<UpstreamResponse>, progress: SendProgress | null) {
    this.#signal = signal;
    this.#progress = progress;
    this.#started = started;
    signal.addEventListener('abort', this.#onSignalAbort, { once: true });
  }

  // ---- undici handler ----

  onRequestStart(controller: DispatchController): void {
    this.#controller = controller;
    if (this.#pendingAbort !== null) {
      controller.abort(this.#pendingAbort);
      return;
    }
    // undici calls this as it writes the request to a connection (not while it waits in the queue).
    if (this.#progress !== null) this.#progress.awaitingAnswer = true;
  }

  onResponseStart(controller: DispatchController, statusCode: number, headers: ResponseHeaders): void {
    if (statusCode < 200) return; // informational; the final status follows
    if (statusCode > 599) {
      // Not an HTTP status: a broken or hostile provider. A failed attempt (502), retried and fallen back like any.
      const broken = new GatewayError('provider_invalid_response', `The provider answered with status ${statusCode}, which HTTP does not have.`);
      this.#abort(broken);
      this.#fail(broken);
      return;
    }
    // A refusal has answered with its status; a 2xx answer is still being worked on until its body
    // begins (a stream's first token): a client that leaves meanwhile is charged for its prompt.
    if (statusCode >= 300) this.#answered();
    this.status = statusCode;
    this.headers = responseHeadersForClient(headers);
    const length = headers['content-length'];
    if (typeof length === 'string' && /^\d+$/.test(length)) this.#declaredLength = Number(length);
    this.#phase = 'body';
    const started = this.#started;
    this.#started = null;
    started?.resolve(this);
  }

  /** A WebSocket handshake the provider accepted: the connection is the answer, and no attempt limit ends it. */
  onRequestUpgrade(_controller: DispatchController, _statusCode: number, headers: ResponseHeaders, socket: Duplex): void {
    this.#answered();
    this.#detachSignal();
    this.#phase = 'ended';
    const started = this.#started;
    this.#started = null;
    const tunnel = new WebSocketTunnel(responseHeadersForClient(headers), socket);
    if (started === null) tunnel.discard();
    else started.resolve(tunnel);
  }

  onResponseData(controller: DispatchController, chunk: Buffer): void {
    this.#answered();
    switch (this.#consumer) {
      case 'forward': {
        const res = this.#res!;
        if (res.destroyed) {
          this.#clientGone();
        } else if (!res.write(chunk)) {
          controller.pause();
        }
        return;
      }
      case 'collect':
        this.#collected += chunk.length;
        if (this.#collected > poolSettings().maxBufferedBytes) {
          this.#tooLarge();
          return;
        }
        this.#chunks.push(chunk);
        return;
      case 'discard':
        this.#drained += chunk.length;
        if (this.#drained > DISCARD_DRAIN_LIMIT) this.#abort(new UpstreamDiscardedError('discarded body exceeded its declared length'));
        return;
      case 'undecided':
        // A small body usually arrives with the status line: keep it instead of pausing and
        // resuming the parser; only a large undecided body pauses the socket.
        this.#chunks.push(chunk);
        this.#undecidedBytes += chunk.length;
        if (this.#undecidedBytes > DISCARD_DRAIN_LIMIT) controller.pause();
        this.#settleBegun();
    }
  }

  onResponseEnd(): void {
    this.#phase = 'ended';
    this.#answered();
    this.#settleBegun();
    this.#detachSignal();
    clearTimeout(this.#drainTimer);
    const finished = this.#finished;
    this.#finished = null;
    if (this.#consumer === 'forward') {
      const res = this.#res!;
      this.#detachClient(res);
      res.end();
      finished?.resolve(undefined);
    } else if (this.#consumer === 'collect') {
      const body = Buffer.concat(this.#chunks);
      this.#chunks = [];
      finished?.resolve(body);
    }
  }

  onResponseError(_controller: DispatchController | null, error: Error): void {
    // A try that failed of itself (not aborted by us) is not with the provider any more.
    if (this.#progress !== null && this.#abortReason === undefined) this.#progress.awaitingAnswer = false;
    const reason = this.#abortReason !== undefined ? this.#abortReason : error;
    if (this.#phase === 'awaiting-response') {
      this.#fail(this.#abortReason !== undefined ? reason : beforeResponseError(error));
    } else if (this.#phase === 'body') {
      this.#fail(this.#abortReason !== undefined ? reason : duringBodyError(error));
    }
  }

  // ---- UpstreamResponse ----

  forwardTo(res: ServerResponse): Promise<void> {
    const consumed = this.#claim<void>('forward');
    if (consumed !== null) return consumed;
    this.#res = res;
    if (this.#phase === 'ended' && !res.destroyed) {
      // The whole body came with the status line (the usual small JSON answer): one write with this
      // turn's other answers, and no listeners, since nothing is left to wait for.
      const chunks = this.#chunks;
      this.#chunks = [];
      return endInTurn(res, chunks.length === 0 ? null : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    }
    const done = this.#whenFinished() as Promise<void>;
    if (res.destroyed) {
      this.#clientGone();
      return done;
    }
    res.on('close', this.#onClientClose);
    res.on('error', this.#onClientClose);
    res.on('drain', this.#onClientDrain);
    const early = this.#chunks;
    this.#chunks = [];
    for (const chunk of early) res.write(chunk);
    if (this.#phase === 'ended') {
      this.onResponseEnd();
    } else {
      if (this.#controller?.paused) this.#controller.resume();
    }
    return done;
  }

  readAll(): Promise<Buffer> {
    const consumed = this.#claim<Buffer>('collect');
    if (consumed !== null) return consumed;
    const done = this.#whenFinished() as Promise<Buffer>;
    // What arrived before a consumer was chosen counts too; a declared length past the bound fails now.
    this.#collected = this.#undecidedBytes;
    const limit = poolSettings().maxBufferedBytes;
    if (this.#collected > limit || this.#declaredLength > limit) {
      this.#tooLarge();
      return done;
    }
    if (this.#phase === 'ended') {
      this.onResponseEnd();
    } else {
      if (this.#controller?.paused) this.#controller.resume();
    }
    return done;
  }

  bodyBegun(after = 0): Promise<void> | null {
    if (this.#phase === 'failed') return Promise.reject(this.#failure);
    if (this.#phase === 'ended' || this.#undecidedBytes > after || this.#consumer !== 'undecided') return null;
    return new Promise<void>((resolve, reject) => {
      this.#begun = { resolve, reject };
    });
  }

  heldBody(): Buffer {
    const chunks = this.#chunks;
    if (chunks.length > 1) this.#chunks = [Buffer.concat(chunks)];
    return this.#chunks[0] ?? EMPTY;
  }

  discard(): void {
    if (this.#consumer === 'discard') return;
    const previous = this.#consumer;
    this.#consumer = 'discard';
    this.#chunks = [];
    if (this.#phase !== 'body') return;
    if (previous === 'undecided' && this.#declaredLength >= 0 && this.#declaredLength <= DISCARD_DRAIN_LIMIT) {
      this.#drainTimer = setTimeout(this.#onDrainTimeout, DISCARD_DRAIN_TIMEOUT_MS);
      this.#drainTimer.unref();
      if (this.#controller?.paused) this.#controller.resume();
      return;
    }
    const reason = new UpstreamDiscardedError('the upstream body was discarded');
    this.#abort(reason);
    this.#fail(reason);
  }

  // ---- internals ----

  /** Marks the body as taken by `consumer`; returns a rejection when that is not possible. */
  #claim<T>(consumer: 'forward' | 'collect'): Promise<T> | null {
    if (this.#consumer !== 'undecided') {
      return Promise.reject(new Error(`upstream body already ${this.#consumer === 'discard' ? 'discarded' : 'consumed'}`));
    }
    this.#consumer = consumer;
    if (this.#phase === 'failed') return Promise.reject(this.#failure);
    return null;
  }

  #whenFinished(): Promise<Buffer | undefined> {
    return new Promise<Buffer | undefined>((resolve, reject) => {
      this.#finished = { resolve, reject };
    });
  }

  /** Settles everything still waiting with `reason`; idempotent. */
  #fail(reason: unknown): void {
    if (this.#phase === 'ended' || this.#phase === 'failed') return;
    this.#phase = 'failed';
    this.#failure = reason;
    this.#chunks = [];
    this.#detachSignal();
    clearTimeout(this.#drainTimer);
    if (this.#res !== null) this.#detachClient(this.#res);
    const started = this.#started;
    const finished = this.#finished;
    const begun = this.#begun;
    this.#started = null;
    this.#finished = null;
    this.#begun = null;
    started?.reject(reason);
    finished?.reject(reason);
    begun?.reject(reason);
  }

  #answered(): void {
    if (this.#progress !== null) this.#progress.awaitingAnswer = false;
  }

  #settleBegun(): void {
    const begun = this.#begun;
    if (begun === null) return;
    this.#begun = null;
    begun.resolve();
  }

  #abort(reason: unknown): void {
    if (this.#abortReason === undefined) this.#abortReason = reason;
    const error = reason instanceof Error ? reason : new Error('upstream request aborted', { cause: reason });
    if (this.#controller === null) {
      this.#pendingAbort = error;
    } else if (!this.#controller.aborted) {
      this.#controller.abort(error);
    }
  }

  #tooLarge(): void {
    const reason = new GatewayError('provider_response_too_large', `The provider's answer is larger than the ${poolSettings().maxBufferedBytes} bytes the gateway holds in memory (GATEWAY_UPSTREAM_MAX_BYTES).`);
    this.#abort(reason);
    this.#fail(reason);
  }

  #clientGone(): void {
    const reason = new ClientClosedError('the client closed the response before the provider body ended');
    this.#abort(reason);
    this.#fail(reason);
  }

  #onSignalAbort = (): void => {
    const reason = this.#signal.reason;
    this.#abort(reason);
    // undici reports our abort synchronously once it has a controller; before that (queued or
    // connecting) nothing would, so settle here either way.
    this.#fail(reason);
  };

  #onDrainTimeout = (): void => {
    const reason = new UpstreamDiscardedError('the discarded body did not end in time');
    this.#abort(reason);
    this.#fail(reason);
  };

  #onClientClose = (): void => {
    if (this.#phase === 'body') this.#clientGone();
  };

  #onClientDrain = (): void => {
    if (this.#phase === 'body' && this.#consumer === 'forward') this.#controller?.resume();
  };

  #detachSignal(): void {
    this.#signal.removeEventListener('abort', this.#onSignalAbort);
  }

  #detachClient(res: ServerResponse): void {
    res.off('close', this.#onClientClose);
    res.off('error', this.#onClientClose);
    res.off('drain', this.#onClientDrain);
  }
}
