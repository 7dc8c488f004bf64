// Every response carries x-gateway-trace-id. Setting it with setHeader as soon as the request
// starts would put node:http on its slow path (writeHead then merges the header object one
// setHeader at a time), so it joins the writeHead header object instead: here, once, for every writer.
import { type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { TRACE_ID_HEADER } from './respond.ts';

export class GatewayResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** Set by the request context; null until then (and for requests that never got one). */
  traceId: string | null = null;

  override writeHead(statusCode: number, messageOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[], maybeHeaders?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this {
    const traceId = this.traceId;
    if (traceId !== null) {
      const headers = typeof messageOrHeaders === 'string' ? maybeHeaders : messageOrHeaders;
      if (headers !== undefined && !Array.isArray(headers)) headers[TRACE_ID_HEADER] = traceId;
      else if (!this.hasHeader(TRACE_ID_HEADER)) this.setHeader(TRACE_ID_HEADER, traceId);
    }
    return typeof messageOrHeaders === 'string'
      ? super.writeHead(statusCode, messageOrHeaders, maybeHeaders)
      : super.writeHead(statusCode, messageOrHeaders);
  }
}
