// Reads a request body into memory with a byte limit, checked on content-length before the first
// byte and again while reading, since chunked uploads announce no length.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../core/errors.ts';

/** The client went away before the body was complete; nobody is left to answer. */
export class ClientAbortedError extends Error {
  override readonly name = 'ClientAbortedError';
}

export function tooLarge(limit: number): GatewayError {
  return new GatewayError('body_too_large', `The request body is larger than the gateway accepts (${limit} bytes).`);
}

/** Throws 413 when the declared content-length is over the limit. */
export function checkDeclaredLength(req: IncomingMessage, limit: number): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) throw tooLarge(limit);
}

/**
 * Bodies are read as sent: a compressed one (content-encoding gzip, br, …) would be parsed as
 * garbage or forwarded without its header, as bytes no provider reads. Refused instead (415).
 */
export function refuseContentEncoding(req: IncomingMessage): void {
  const encoding = req.headers['content-encoding'];
  if (encoding === undefined || encoding.trim().toLowerCase() === 'identity' || encoding.trim() === '') return;
  throw new GatewayError('unsupported_content_encoding', `The request body has content-encoding ${JSON.stringify(encoding)}; send it uncompressed (no content-encoding, or identity).`, 'content-encoding');
}

/**
 * A body sent to an endpoint that reads none would be dropped unread (`GET /v1/configs` with
 * `{"page_size": 1}` answered every config): refused. An empty body, or an empty JSON object (what
 * some clients send on a bare POST such as a cancel), holds nothing to ignore.
 */
export async function refuseUnreadBody(ctx: { method: string; headers: IncomingMessage['headers']; readBody(): Promise<Buffer> }, path: string): Promise<void> {
  const declared = ctx.headers['content-length'];
  if (ctx.headers['transfer-encoding'] === undefined && (declared === undefined || Number(declared) === 0)) return;
  const text = (await ctx.readBody()).toString('utf8').trim();
  if (text === '' || /^\{\s*\}$/.test(text)) return;
  throw new GatewayError('invalid_request_body', `${ctx.method} ${path} reads no request body, so this one would be ignored; options go in the query string where the endpoint takes them (docs/api.md).`, null);
}

export function readRequestBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  checkDeclaredLength(req, limit);
  if (req.complete && req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (error: Error | null): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (error === null) resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received));
      else reject(error);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limit) {
        // Stop buffering; the 413 goes out with `connection: close`, which discards the rest.
        req.pause();
        finish(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish(null);
    const onError = (): void => finish(new ClientAbortedError('the client aborted the upload'));
    const onClose = (): void => {
      if (!req.complete) finish(new ClientAbortedError('the client closed the connection during the upload'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
