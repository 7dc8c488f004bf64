// The contract between the router and the network. `send` resolves when the provider's status
// and headers have arrived; the body stays paused until the caller forwards, reads or discards it.
import type { ServerResponse } from 'node:http';

export interface UpstreamRequest {
  /** Scheme + host + port, e.g. `https://api.vendor.example` or `http://127.0.0.1:9000`. */
  origin: string;
  /** Path and query string, starting with `/`. */
  path: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** Lower-cased names; hop-by-hop headers are stripped by the upstream layer. */
  headers: Record<string, string>;
  body: Buffer | null;
  /** Aborts the exchange (client went away, or the attempt timed out). */
  signal: AbortSignal;
  /**
   * The attempt's own time limit (a config's request_timeout, x-gateway-request-timeout, a check's
   * timeout), which `signal` enforces: the pools' safety timeouts for headers and between body
   * chunks (60 s by default) give way to it, so a limit longer than theirs is the one that holds.
   * Absent or null: the safety timeouts apply.
   */
  timeoutMs?: number | null;
  /** Kept up to date with whether the provider has the request and has not answered yet (see SendProgress). */
  progress?: SendProgress | null;
  /**
   * A WebSocket handshake (the headers carry the client's `sec-websocket-*`): a 101 answers with a
   * WebSocketTunnel (runtime/upstream/tunnel.ts); any other status is an answer like any.
   */
  webSocket?: boolean;
}

/**
 * Whether a request is with the provider: set when it is written to a connection, cleared when the
 * provider answered (a refusal, 3xx to 5xx, with its status line; a 2xx answer with the first byte,
 * or the end, of its body: a stream's headers come at once, its first token once the prompt was
 * read) or the try fails of itself. An abort (the client left, the attempt's time ran out) leaves it
 * set: the provider had the request and may have worked on it.
 */
export interface SendProgress {
  awaitingAnswer: boolean;
}

export interface UpstreamResponse {
  status: number;
  /** Lower-cased names, hop-by-hop headers removed. */
  headers: Record<string, string | string[]>;
  /**
   * Forwards the body to `res` chunk by chunk with backpressure (the caller has set the head:
   * writeHead, or GatewayResponse.deferHead to have it written with the first byte). Resolves when
   * the body ended, rejects if it broke (the caller then answers with an error if no byte went out,
   * else ends the client stream with an error event or cuts it).
   */
  forwardTo(res: ServerResponse): Promise<void>;
  /** Buffers the whole body (used by transforms, error mapping and tests). */
  readAll(): Promise<Buffer>;
  /** Drops the body and releases the connection; safe to call more than once. */
  discard(): void;
  /**
   * Called before a consumer is chosen: null when more than `after` bytes of the body (by default
   * none: its first byte), or its end, are already here; else a promise that resolves when more
   * come or the body ends, and rejects if it failed first. Only the network's answer has it (a body
   * in memory has begun).
   */
  bodyBegun?(after?: number): Promise<void> | null;
  /** The body's bytes that came before a consumer was chosen, left for it (with bodyBegun: to read a stream's start). */
  heldBody?(): Buffer;
}
