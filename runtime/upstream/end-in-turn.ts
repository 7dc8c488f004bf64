// Answers whose bytes are all in memory are sent together, once per turn of the event loop: each
// `end` is queued and the queue is written in the loop's check phase, after the poll phase has run
// every request and upstream answer that was ready. A client that shares the machine (a sidecar, a
// local proxy, a load generator) sleeps between answers; a write to its socket wakes it, and on a
// virtual machine that wake-up is an interrupt to another core that costs the writer more than the
// rest of a cache hit (docs/decisions.md). Written back to back, the answers of one turn wake it
// once. An answer waits at most for the turn it was made in, and only while turns make more than one
// answer: after a turn that made one (a lone client), answers are written at once, and the turn
// they are made in is still counted, so the next busy turn batches again.
import type { ServerResponse } from 'node:http';

let queued: Array<ServerResponse | Buffer | null> = [];
/** The turn being counted: its answers so far, and (when batching) the promise of their writing. */
let turn: { answers: number; written: Promise<void> | null; resolve(): void } | null = null;
/** Whether the last counted turn made more than one answer. */
let busy = false;
const WRITTEN: Promise<void> = Promise.resolve();

/**
 * Ends `res` with `body` (null: no more bytes): in this turn's check phase while turns are busy, at
 * once otherwise. Resolves once it was written (at once when the client had gone).
 */
export function endInTurn(res: ServerResponse, body: Buffer | null): Promise<void> {
  // A client that left is no error, and no answer of this turn.
  if (res.destroyed) return WRITTEN;
  if (turn === null) {
    turn = { answers: 0, written: null, resolve: noop };
    setImmediate(endTurn);
  }
  turn.answers++;
  if (!busy) {
    endNow(res, body);
    return WRITTEN;
  }
  const current = turn;
  current.written ??= new Promise<void>((resolve) => (current.resolve = resolve));
  queued.push(res, body);
  return current.written;
}

function endTurn(): void {
  const done = turn!;
  const answers = queued;
  // A new turn for anything made while these are written.
  turn = null;
  queued = [];
  busy = done.answers > 1;
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

function noop(): void {}
