// A WebSocket handshake (RFC 6455 §4), as the realtime APIs take one: which request is one, and the
// headers of it the provider must see. The gateway carries such a connection on the pass-through
// (runtime/upstream/tunnel.ts); anywhere else it refuses it.
import type { IncomingHttpHeaders } from 'node:http';

/**
 * The handshake's own headers, sent on to the provider as the client sent them. Not
 * `sec-websocket-extensions`: with no extension agreed the frames go uncompressed, whatever the
 * client offered (permessage-deflate is optional on both sides).
 */
const HANDSHAKE_HEADERS = ['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-protocol'] as const;

/**
 * How long a connection handed over for a WebSocket may stay half open once one side ended it: a
 * session's other side (its close frame on the way), or a refused handshake's client. node:http
 * watches no such socket, so without a cut a client that never ends its half would keep it forever.
 */
export const HALF_OPEN_GRACE_MS = 1000;

/** `Upgrade: websocket` among the upgrades asked for. Other upgrades (curl's `h2c`) a server may ignore, and the gateway does. */
export function asksForWebSocket(upgrade: string | undefined): boolean {
  return upgrade !== undefined && /(?:^|,)\s*websocket\s*(?:,|$)/i.test(upgrade);
}

/** The handshake headers to send the provider; null when the request is no WebSocket handshake. */
export function webSocketHandshake(headers: IncomingHttpHeaders): Record<string, string> | null {
  if (!asksForWebSocket(headers.upgrade)) return null;
  const sent: Record<string, string> = {};
  for (const name of HANDSHAKE_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string') sent[name] = value;
  }
  return sent;
}
