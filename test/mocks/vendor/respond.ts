// Writing responses the way the vendor does: its headers on every answer, bodies written with
// backpressure, and the scripted breaks and stalls applied to plain (non-SSE) bodies.
import type { MockContext } from './context.ts';
import { vendorId } from './context.ts';
import { vendorError } from './vendor-errors.ts';
import type { VendorErrorFields } from './types.ts';

const REQUEST_LIMIT = 10_000;
const TOKEN_LIMIT = 2_000_000;

export function vendorHeaders(ctx: MockContext): Record<string, string> {
  const headers: Record<string, string> = {
    'x-request-id': vendorId('req_'),
    'vendor-organization': 'org-mock',
    'vendor-processing-ms': String(Date.now() - ctx.startedAt),
    'vendor-version': '2020-10-01',
    'x-ratelimit-limit-requests': String(REQUEST_LIMIT),
    'x-ratelimit-remaining-requests': String(Math.max(0, REQUEST_LIMIT - ctx.ordinal)),
    'x-ratelimit-reset-requests': '6ms',
    'x-ratelimit-limit-tokens': String(TOKEN_LIMIT),
    'x-ratelimit-remaining-tokens': String(TOKEN_LIMIT - 1000),
    'x-ratelimit-reset-tokens': '30ms',
    'x-mock-instance': ctx.label,
  };
  const step = ctx.step;
  if (step !== null) {
    if (step.retryAfter !== undefined) headers['retry-after'] = String(step.retryAfter);
    if (step.retryAfterMs !== undefined) headers['retry-after-ms'] = String(step.retryAfterMs);
    if (step.headers !== undefined) {
      for (const [name, value] of Object.entries(step.headers)) headers[name.toLowerCase()] = value;
    }
  }
  return headers;
}

export function startResponse(ctx: MockContext, status: number, headers: Record<string, string>): void {
  const all = { ...vendorHeaders(ctx), ...headers };
  ctx.record.status = status;
  ctx.record.responseHeaders = all;
  ctx.res.writeHead(status, all);
}

/** Writes one chunk; waits for 'drain' when the socket is full. False once the client is gone. */
export function writeChunk(ctx: MockContext, chunk: Buffer | string): Promise<boolean> | boolean {
  const { res, record } = ctx;
  if (res.destroyed) return false;
  record.responseBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
  if (res.write(chunk)) return true;
  record.drainWaits += 1;
  return new Promise<boolean>((resolve) => {
    const settle = (): void => {
      res.off('drain', settle);
      res.off('close', settle);
      resolve(!res.destroyed);
    };
    res.on('drain', settle);
    res.on('close', settle);
  });
}

/** Sends a complete body with content-length, honouring the step's byte-level break or stall. */
export async function sendBody(ctx: MockContext, status: number, contentType: string, body: Buffer): Promise<void> {
  startResponse(ctx, status, { 'content-type': contentType, 'content-length': String(body.length) });
  const cut = ctx.step?.breakAfter ?? ctx.step?.stallAfter;
  if (cut === undefined || cut >= body.length) {
    ctx.record.responseBytes += body.length;
    ctx.res.end(body);
    return;
  }
  if (!(await writeChunk(ctx, body.subarray(0, cut)))) return;
  if (ctx.step?.breakAfter !== undefined) ctx.destroyOnPurpose();
  // A stall leaves the socket open with the body incomplete until the client gives up.
}

export function sendJson(ctx: MockContext, status: number, value: unknown): Promise<void> {
  return sendBody(ctx, status, 'application/json', Buffer.from(JSON.stringify(value)));
}

export function sendVendorError(ctx: MockContext, status: number, fields: Partial<VendorErrorFields> = {}): Promise<void> {
  return sendJson(ctx, status, vendorError(status, fields));
}

export function badRequest(ctx: MockContext, message: string, param: string | null = null, code: string | null = null): Promise<void> {
  return sendVendorError(ctx, 400, { message, param, code });
}
