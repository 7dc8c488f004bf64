// The fuzzers' stall check: the loop held by work counts, the collector's pauses within a stall do not.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { liveHeap } from './request-fuzz.ts';
import { watchStalls } from './stall-watch.ts';

/**
 * Holds the loop until the thread has worked `ms` of CPU time (however long it waits for a CPU
 * meanwhile). The CPU time is read once a millisecond: each reading is an object, and reading it in
 * the tight loop made enough garbage for collections that the watch rightly takes out.
 */
function busy(ms: number): void {
  const cpu = (): number => {
    const { user, system } = process.threadCpuUsage();
    return (user + system) / 1000;
  };
  const until = cpu() + ms;
  while (cpu() < until) {
    const slice = performance.now() + 1;
    while (performance.now() < slice);
  }
}

describe('watchStalls', () => {
  it('counts a loop held by work as its own stall', async () => {
    const watch = watchStalls();
    await sleep(20);
    busy(150);
    await sleep(20);
    const { longestOwnMs, stalls } = await watch.stop();
    // Past the fuzzers' 100 ms bound, whatever a collection took of it.
    expect(longestOwnMs, JSON.stringify(stalls)).toBeGreaterThanOrEqual(100);
    expect(stalls.some((s) => s.ms >= 150)).toBe(true);
  });

  it('takes the collector\'s pauses out of a stall', async () => {
    // A live set large enough that a full collection (liveHeap forces one) holds the loop a while.
    const live = Array.from({ length: 1_500_000 }, (_, i) => ({ i, s: `x${i}` }));
    const watch = watchStalls();
    await sleep(20);
    liveHeap();
    await sleep(20);
    const { longestOwnMs, stalls } = await watch.stop();
    expect(live).toHaveLength(1_500_000);
    // A collection past the fuzzers' 100 ms bound (~150 ms on the 2-core VM), not counted against it.
    expect(stalls.some((s) => s.gcMs > 100), JSON.stringify(stalls)).toBe(true);
    expect(longestOwnMs, JSON.stringify(stalls)).toBeLessThan(100);
  });
});
