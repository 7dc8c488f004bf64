// Server-sent events as the vendor streams them: `data: <json>\n\n` frames, then `data: [DONE]`.
// Scripted steps slow the frames, break the connection or stall after a number of frames.
import type { MockContext } from './context.ts';
import { sleep } from './context.ts';
import { startResponse, writeChunk } from './respond.ts';

export const DONE = Symbol('done');
export type SseFrame = object | typeof DONE;

export async function sendEventStream(ctx: MockContext, frames: Iterable<SseFrame>): Promise<void> {
  startResponse(ctx, 200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  ctx.res.flushHeaders();
  const breakAfter = ctx.step?.breakAfter;
  const stallAfter = ctx.step?.stallAfter;
  const delayMs = ctx.step?.frameDelayMs ?? 0;
  let sent = 0;
  for (const frame of frames) {
    if (breakAfter !== undefined && sent >= breakAfter) {
      ctx.destroyOnPurpose();
      return;
    }
    if (stallAfter !== undefined && sent >= stallAfter) return;
    if (delayMs > 0 && sent > 0) await sleep(delayMs);
    const text = frame === DONE ? 'data: [DONE]\n\n' : `data: ${JSON.stringify(frame)}\n\n`;
    if (!(await writeChunk(ctx, text))) return;
    sent += 1;
  }
  ctx.res.end();
}
