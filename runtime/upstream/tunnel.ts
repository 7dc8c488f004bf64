// A WebSocket connection the provider accepted (its 101), as the answer the router hands on: sent to
// the client, it writes the 101 with the gateway's headers, then carries the bytes both ways until
// either side closes, and resolves then. The frames are not read here: the session is the client's
// and the provider's (a realtime API's events, audio included); a tap on the response is told what
// the provider sends (the request log reads the session's usage from it).
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ClientClosedError } from './errors.ts';
import type { UpstreamResponse } from './types.ts';
import type { TappableResponse } from '../core/body-tap.ts';
import { HALF_OPEN_GRACE_MS } from '../core/web-socket.ts';


/** The headers that make a 101 a WebSocket's (hop-by-hop, so dropped from the provider's own). */
const UPGRADED = { connection: 'Upgrade', upgrade: 'websocket' } as const;

export class WebSocketTunnel implements UpstreamResponse {
  readonly status = 101;
  readonly headers: Record<string, string | string[]>;
  readonly #upstream: Duplex;
  #used = false;

  /** `headers`: the provider's, hop-by-hop ones already dropped. */
  constructor(headers: Record<string, string | string[]>, upstream: Duplex) {
    this.headers = { ...headers, ...UPGRADED };
    this.#upstream = upstream;
    // Until a client is joined, a provider that closes or fails only ends the tunnel.
    upstream.on('error', ignore);
  }

  forwardTo(res: ServerResponse): Promise<void> {
    const client = res.socket;
    if (this.#used || client === null || client.destroyed) {
      this.discard();
      return Promise.reject(new ClientClosedError('the client left before its WebSocket connection was opened'));
    }
    this.#used = true;
    const upstream = this.#upstream;
    // What the provider sends is told to the answer's tap (the session's usage is read from its events):
    // read at each chunk, since the tap is let go when the response closes.
    const tapped = res as ServerResponse & Partial<TappableResponse>;
    const tap = tapped.bodyTap ?? null;
    if (tap !== null) upstream.on('data', (chunk: Buffer) => tapped.bodyTap?.write(chunk));
    // And what the client sends, to a tap that reads it (the log's, with bodies logged).
    if (tap?.sent !== undefined) client.on('data', (chunk: Buffer) => tapped.bodyTap?.sent?.(chunk));
    // The head (deferred by the caller, with the gateway's headers) goes out now: a 101 has no body.
    res.flushHeaders();
    return new Promise<void>((resolve) => {
      let open = 2;
      const closed = (): void => {
        // Either side gone ends the other: a WebSocket is no use half open.
        client.destroy();
        upstream.destroy();
        if (--open === 0) resolve();
      };
      // One side's end is the session's (a WebSocket closes with frames, then TCP): the other side is
      // ended by the pipe, and whatever still holds its half open is cut after a grace period.
      let ending = false;
      const ended = (): void => {
        if (ending) return;
        ending = true;
        setTimeout(() => {
          client.destroy();
          upstream.destroy();
        }, HALF_OPEN_GRACE_MS).unref();
      };
      client.on('error', ignore);
      client.once('close', closed);
      upstream.once('close', closed);
      client.once('end', ended);
      upstream.once('end', ended);
      upstream.pipe(client);
      client.pipe(upstream);
    });
  }

  readAll(): Promise<Buffer> {
    this.discard();
    return Promise.reject(new Error('a WebSocket connection has no body to read'));
  }

  discard(): void {
    this.#used = true;
    this.#upstream.destroy();
  }
}

function ignore(): void {}
