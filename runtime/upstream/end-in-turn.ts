// Answers whose bytes are all in memory are sent together, once per turn of the event loop: each
// `end` is queued and the queue is written in the loop's check phase, after the poll phase has run
// every request and upstream answer that was ready. A client that shares the machine (a sidecar, a
// local proxy, a load generator) sleeps between answers; a write to its socket wakes it, and on a
// virtual machine that wake-up is an interrupt to another core that costs the writer more than the
// rest of a cache hit (docs/decisions.md). Written back to back, the answers of one turn wake it
// once. An answer waits at most for the turn it was made in, and only when other answers are open:
// a lone request's answer could join no one, so it is written at once.
import type { ServerResponse } from 'node:http';

let queued: Array<ServerResponse | Buffer | null> = [];
let turn: { written: Promise<void>; resolve(): void } | null = null;
/** Responses begun and not yet closed in this process (runtime/server/gateway-response.ts counts them). */
let open = 0;
const WRITTEN: Promise<void> = Promise.resolve();

/** A response began; it counts as open until answerClosed. */
export function answerOpened(): void {
  open++;
}

export function answerClosed(): void {
  open--;
}

/**
 * Ends `res` with `body` (null: no more bytes) in this turn's check phase, or at once when no other
 * response is open; resolves once it was written (or the client had gone).
 */
export function endInTurn(res: ServerResponse, body: Buffer | null): Promise<void> {
  if (turn === null && open <= 1) {
    endNow(res, body);
    return WRITTEN;
  }
  if (turn === null) {
    let resolve!: () => void;
    const written = new Promise<void>((r) => (resolve = r));
    turn = { written, resolve };
    setImmediate(writeQueued);
  }
  queued.push(res, body);
  return turn.written;
}

function writeQueued(): void {
  const done = turn!;
  const answers = queued;
  // A new turn for anything queued while these are written.
  turn = null;
  queued = [];
  for (let i = 0; i < answers.length; i += 2) endNow(answers[i] as ServerResponse, answers[i + 1] as Buffer | null);
  done.resolve();
}

function endNow(res: ServerResponse, body: Buffer | null): void {
  if (res.destroyed) return;
  try {
    if (body === null) res.end();
    else res.end(body);
  } catch (error) {
    // The client sees a cut response, as after any end that throws.
    res.destroy(error as Error);
  }
}
