// One run at a time, and calls made during a run share the one run after it: a timer that ticks
// faster than a failing store answers never queues a run per tick.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { OneAtATime } from '../../runtime/core/one-at-a-time.ts';

it('runs at once when idle; calls during a run share the next run, which starts after it', async () => {
  const started: number[] = [];
  let finish: () => void = () => undefined;
  const runs = new OneAtATime(() => {
    started.push(started.length);
    return new Promise<void>((resolve) => (finish = resolve));
  });
  const first = runs.run();
  await Promise.resolve();
  expect(runs.running).toBe(true);
  const during = [runs.run(), runs.run(), runs.run()];
  expect(during[1]).toBe(during[0]);
  expect(started).toEqual([0]);
  finish();
  await first;
  await new Promise((resolve) => setImmediate(resolve));
  expect(started).toEqual([0, 1]);
  finish();
  await Promise.all(during);
  expect(runs.running).toBe(false);
});

it('property: whatever the calls, runs never overlap, and every call is followed by a run that started after it', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.nat({ max: 3 }), { minLength: 1, maxLength: 30 }), async (waits) => {
      let active = 0;
      let overlapped = false;
      const startedAt: number[] = [];
      let clock = 0;
      const runs = new OneAtATime(async () => {
        startedAt.push(++clock);
        active++;
        if (active > 1) overlapped = true;
        for (let i = 0; i < 2; i++) await Promise.resolve();
        active--;
      });
      const calls: Array<Promise<{ calledAt: number }>> = [];
      for (const wait of waits) {
        const calledAt = ++clock;
        calls.push(runs.run().then(() => ({ calledAt })));
        for (let i = 0; i < wait; i++) await Promise.resolve();
      }
      for (const { calledAt } of await Promise.all(calls)) expect(startedAt.some((at) => at > calledAt)).toBe(true);
      expect(overlapped).toBe(false);
      // At most one run per call, and fewer when calls came during a run.
      expect(startedAt.length).toBeLessThanOrEqual(waits.length);
    }),
    { numRuns: 200 },
  );
});
