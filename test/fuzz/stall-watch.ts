// How long the event loop was held while a fuzzer ran, less what the garbage collector took of it.
// A fuzzer shares its process and heap with the test runner, fast-check and the mocks: a full
// collection of that heap held the loop for up to ~115 ms on the 2-core VM (seen with a `gc`
// observer beside a ticker), in cases doing nothing heavy, and failed the check about once in seven
// runs. What the check is for is the gateway's own work holding the loop (a parse, a scan, a loop
// over what a client sent); the collector's pauses in the gateway's own process are what
// bench/ measures under its memory settings.
import { PerformanceObserver } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

const TICK_MS = 5;
/** Gaps between ticks shorter than this are not kept (the scheduler's own jitter). */
const KEEP_ABOVE_MS = 40;

export interface Stall {
  /** The loop held this long, in ms. */
  ms: number;
  /** Of which the garbage collector's pauses within it. */
  gcMs: number;
}

export interface StallWatch {
  /** Stops watching; the longest stall the collector does not explain, and every stall kept. */
  stop(): Promise<{ longestOwnMs: number; stalls: Stall[] }>;
}

export function watchStalls(): StallWatch {
  const windows: Array<{ from: number; to: number }> = [];
  const pauses: Array<{ from: number; to: number }> = [];
  const gcs = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push({ from: entry.startTime, to: entry.startTime + entry.duration });
  });
  gcs.observe({ entryTypes: ['gc'] });
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    if (now - last > KEEP_ABOVE_MS) windows.push({ from: last, to: now });
    last = now;
  }, TICK_MS);
  return {
    async stop() {
      clearInterval(ticker);
      // The observer is told of collections a turn later.
      await nextTurn();
      gcs.disconnect();
      const stalls = windows.map(({ from, to }) => ({
        ms: to - from,
        gcMs: pauses.reduce((sum, pause) => sum + Math.max(0, Math.min(to, pause.to) - Math.max(from, pause.from)), 0),
      }));
      return { longestOwnMs: Math.max(0, ...stalls.map((s) => s.ms - s.gcMs)), stalls };
    },
  };
}
