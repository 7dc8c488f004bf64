// How long the event loop was held by work while a fuzzer ran: the main thread's CPU time in each
// stall, less what the garbage collector took of it. A fuzzer shares its process and heap with the
// test runner, fast-check and the mocks: a full collection of that heap held the loop for up to
// ~115 ms on the 2-core VM (seen with a `gc` observer beside a ticker), in cases doing nothing heavy,
// and failed the check about once in seven runs; and with the suite's other files on both cores the
// thread can wait for a CPU as long. What the check is for is the gateway's own work holding the loop
// (a parse, a scan, a loop over what a client sent); the collector's pauses in the gateway's own
// process are what bench/ measures under its memory settings.
import { PerformanceObserver } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

const TICK_MS = 5;
/** Gaps between ticks shorter than this are not kept (the scheduler's own jitter). */
const KEEP_ABOVE_MS = 40;

export interface Stall {
  /** The loop held this long, in ms. */
  ms: number;
  /** The main thread's CPU time in it (less than `ms` while it waited for a CPU). */
  cpuMs: number;
  /** The garbage collector's pauses within it. */
  gcMs: number;
}

export interface StallWatch {
  /** Stops watching; the longest stall's work (its CPU time less the collector's), and every stall kept. */
  stop(): Promise<{ longestOwnMs: number; stalls: Stall[] }>;
}

export function watchStalls(): StallWatch {
  const windows: Array<{ from: number; to: number; cpuMs: number }> = [];
  const pauses: Array<{ from: number; to: number }> = [];
  const gcs = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push({ from: entry.startTime, to: entry.startTime + entry.duration });
  });
  gcs.observe({ entryTypes: ['gc'] });
  let last = performance.now();
  let lastCpu = threadCpuMs();
  const ticker = setInterval(() => {
    const now = performance.now();
    const cpu = threadCpuMs();
    if (now - last > KEEP_ABOVE_MS) windows.push({ from: last, to: now, cpuMs: cpu - lastCpu });
    last = now;
    lastCpu = cpu;
  }, TICK_MS);
  return {
    async stop() {
      clearInterval(ticker);
      // The observer is told of collections a turn later.
      await nextTurn();
      gcs.disconnect();
      const stalls = windows.map(({ from, to, cpuMs }) => ({
        ms: to - from,
        cpuMs,
        gcMs: pauses.reduce((sum, pause) => sum + Math.max(0, Math.min(to, pause.to) - Math.max(from, pause.from)), 0),
      }));
      return { longestOwnMs: Math.max(0, ...stalls.map((s) => Math.min(s.ms, s.cpuMs) - s.gcMs)), stalls };
    },
  };
}

/** The main thread's CPU time (user and system) so far, in ms. */
function threadCpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}
