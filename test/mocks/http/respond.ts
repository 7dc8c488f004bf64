// Writing responses for any family's mock: the family's headers plus the scripted extras, bodies
// with backpressure, and the scripted breaks and stalls (after N bytes, or after N stream events).
import type { MockContext } from '../vendor/context.ts';
import { sleep } from '../vendor/context.ts';
import { writeChunk } from '../vendor/respond.ts';

/** Adds the step's retry-after and extra headers to a family's own. */
export function withStepHeaders(ctx: MockContext, headers: Record<string, string>): Record<string, string> {
  const all = { ...headers };
  const step = ctx.step;
  if (step !== null) {
    if (step.retryAfter !== undefined) all['retry-after'] = String(step.retryAfter);
    if (step.retryAfterMs !== undefined) all['retry-after-ms'] = String(step.retryAfterMs);
    for (const [name, value] of Object.entries(step.headers ?? {})) all[name.toLowerCase()] = value;
  }
  return all;
}

export function startWith(ctx: MockContext, status: number, headers: Record<string, string>): void {
  const all = withStepHeaders(ctx, headers);
  ctx.record.status = status;
  ctx.record.responseHeaders = all;
  ctx.res.writeHead(status, all);
}

/** A complete body with content-length, honouring the step's byte-level break or stall. */
export async function sendBytes(ctx: MockContext, status: number, headers: Record<string, string>, body: Buffer): Promise<void> {
  startWith(ctx, status, { ...headers, 'content-length': String(body.length) });
  const cut = ctx.step?.breakAfter ?? ctx.step?.stallAfter;
  if (cut === undefined || cut >= body.length) {
    ctx.record.responseBytes += body.length;
    ctx.res.end(body);
    return;
  }
  if (!(await writeChunk(ctx, body.subarray(0, cut)))) return;
  if (ctx.step?.breakAfter !== undefined) ctx.destroyOnPurpose();
}

/**
 * A stream of events (SSE frames or binary messages), one write each, with the step's frame delay,
 * break (socket destroyed after N events) and stall (silence after N events).
 */
export async function sendEvents(ctx: MockContext, status: number, headers: Record<string, string>, events: Iterable<Buffer | string>): Promise<void> {
  startWith(ctx, status, headers);
  ctx.res.flushHeaders();
  const breakAfter = ctx.step?.breakAfter;
  const stallAfter = ctx.step?.stallAfter;
  const delayMs = ctx.step?.frameDelayMs ?? 0;
  let sent = 0;
  for (const event of events) {
    if (breakAfter !== undefined && sent >= breakAfter) {
      ctx.destroyOnPurpose();
      return;
    }
    if (stallAfter !== undefined && sent >= stallAfter) return;
    if (delayMs > 0 && sent > 0) await sleep(delayMs);
    if (!(await writeChunk(ctx, event))) return;
    sent += 1;
  }
  ctx.res.end();
}

/** Splits a string into pieces of at most `size` characters (streamed tool input, say). */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length === 0 ? [''] : out;
}
