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
  // Leftover request bytes would be read as the next request; closing is cheaper than draining them.
  if (!res.req.complete) res.shouldKeepAlive = false;
  sendJson(res, error.status, error.toBody());
}
