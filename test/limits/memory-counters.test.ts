// The memory counters under groups a client invents: a policy grouped by metadata the client sends
// (a user id per request) must not grow the process without bound, and sweeping idle groups must
// never forget one whose window still counts.
import { expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { MemoryCounters } from '../../runtime/pipeline/limits/memory-counters.ts';
import { ALL } from '../../runtime/store/page.ts';

const SECOND = 1000;
const T0 = 1_800_000_000_000;

it('holds about the live groups, not every group ever seen, over a long run of one-off groups', async () => {
  const counters = new MemoryCounters();
  let most = 0;
  // 100 new groups a second for 10 minutes of a 1-second window: ~100 live at any time.
  for (let i = 0; i < 60_000; i++) {
    const admission = counters.admitNow([{ policyId: 'p', group: `["user-${i}"]`, windowMs: SECOND, limit: 1, cost: 1 }], [], T0 + i * 10);
    expect(admission.allowed).toBe(true);
    most = Math.max(most, counters.windowGroups);
  }
  expect(most).toBeLessThanOrEqual(1024);
  expect((await counters.windowUsage('p', SECOND, 1, T0 + 60_000 * 10, ALL, null)).total).toBeLessThanOrEqual(102);
});

test.prop([fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1_000, max: 5_000 }), fc.integer({ min: 0, max: 59 })], { numRuns: 20 })(
  'a sweep never drops a group whose window still counts: a group at its limit stays refused',
  (limit, oneOffs, secondsLater) => {
    const counters = new MemoryCounters();
    const minute = 60 * SECOND;
    const check = (group: string, cost = 1, max = 1) => [{ policyId: 'p', group, windowMs: minute, limit: max, cost }];
    const oneOff = (i: number, now: number) => counters.admitNow(check(`["once-${i}"]`), [], now);
    // One-off groups over the 40 s before the hot group fills its window, then enough more, up to the
    // moment it is asked again, to set off sweeps that drop the early ones.
    for (let i = 0; i < oneOffs; i++) oneOff(i, T0 + Math.floor((i * 40 * SECOND) / oneOffs));
    const hotAt = T0 + 50 * SECOND;
    for (let i = 0; i < limit; i++) expect(counters.admitNow(check('["hot"]', 1, limit), [], hotAt).allowed).toBe(true);
    const askedAt = hotAt + secondsLater * SECOND;
    for (let i = 0; i < oneOffs * 2; i++) oneOff(oneOffs + i, hotAt + Math.floor((i * (askedAt - hotAt)) / (oneOffs * 2)));
    const again = counters.admitNow(check('["hot"]', 0, limit), [], askedAt);
    expect(again.allowed).toBe(false);
    expect(again.windows[0]!.used).toBe(limit);
  },
);
