// Long synchronous work in slices: `pause()` is called between small steps and lets the event loop
// in once a slice has run its time, so a 25 MB batch file checked line by line (~250 ms of JSON
// parsing) never holds every other request for longer than one slice.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long one slice may hold the event loop. */
export const SLICE_MS = 10;

export class TimeSlice {
  #started = performance.now();

  /** Resolves at once within the slice, or after a turn of the event loop once it ran out. */
  pause(): Promise<void> | undefined {
    if (performance.now() - this.#started < SLICE_MS) return undefined;
    return nextTurn().then(() => {
      this.#started = performance.now();
    });
  }
}
