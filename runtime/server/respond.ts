// Writing responses. The trace id is set on the response when the request context is built, so
// every response below (and any upstream response a handler forwards) carries it.
import type { ServerResponse } from 'node:http';
import type { GatewayError } from '../core/errors.ts';
import { GatewayResponse } from './gateway-response.ts';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

/**
 * Sends the gateway error body. When the status line is already out there is no honest way to
 * report the error, so the connection is cut and the client sees an incomplete response.
 */
export function sendGatewayError(res: ServerResponse, error: GatewayError): void {
  if (res instanceof GatewayResponse && res.record !== null) res.record.errorCode = error.code;
  if (res.destroyed || res.writableEnded) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (res.req.complete) {
    sendJson(res, error.status, error.toBody());
    return;
  }
  // The request's body is still coming (refused before it was read, or for its size). The connection
  // closes after this answer (the next request would start mid-body), but closing it at once resets
  // a client still sending: its write fails, and it reports a broken connection instead of this
  // answer. So the answer is written whole, and the connection ends once the rest of the body was
  // read and dropped, within bounds (a lingering close, RFC 9112 §9.6).
  res.shouldKeepAlive = false;
  const payload = JSON.stringify(error.toBody());
  res.writeHead(error.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
  res.write(payload);
  endAfterBody(res);
}

/** At most this much of a refused body is read and dropped, for at most this long, before the connection closes anyway. */
const LINGER_BYTES = 64 * 1024 * 1024;
const LINGER_MS = 5_000;

function endAfterBody(res: ServerResponse): void {
  const req = res.req;
  let dropped = 0;
  const end = (): void => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', end);
    req.off('error', end);
    req.off('close', end);
    if (!res.writableEnded) res.end();
  };
  const onData = (chunk: Buffer): void => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) end();
  };
  const timer = setTimeout(end, LINGER_MS);
  req.on('data', onData);
  req.on('end', end);
  req.on('error', end);
  req.on('close', end);
  req.resume();
}
