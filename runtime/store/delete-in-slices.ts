// Deleting many rows a bounded slice at a time: on SQLite a statement runs on the serving thread, so
// each slice is one short statement and a turn of the event loop follows it (request-log retention,
// ended usage budgets). Stops at the first slice that was not full.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Calls `deleteSlice(slice)` until it deletes fewer than `slice` rows; returns how many it deleted. */
export async function deleteInSlices(deleteSlice: (slice: number) => Promise<number>, slice: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const n = await deleteSlice(slice);
    deleted += n;
    if (n < slice) return deleted;
    await nextTurn();
  }
}
