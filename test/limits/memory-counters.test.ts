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

test.prop(
  [
    fc.integer({ min: 1, max: 6 }),
    fc.array(fc.record({ group: fc.integer({ min: 0, max: 9 }), advanceMs: fc.constantFrom(0, 0, 0, 1_000, 20_000, 61_000) }), { minLength: 1, maxLength: 80 }),
  ],
  { numRuns: 200 },
)('keeps at most maxGroups rate windows per policy: a new group past them is refused (groupsFull), a live one never is', (maxGroups, steps) => {
  const counters = new MemoryCounters({ maxGroups });
  let now = T0;
  const asked = new Set<number>();
  for (const step of steps) {
    now += step.advanceMs;
    const check = [{ policyId: 'p', group: `["u${step.group}"]`, windowMs: 60 * SECOND, limit: 1000, cost: 1 }];
    const known = counters.windowGroups;
    const admission = counters.admitNow(check, [], now);
    asked.add(step.group);
    if (admission.groupsFull !== undefined) {
      expect(admission.groupsFull).toBe('p');
      expect(admission.allowed).toBe(false);
      // Refused only with the table full of live groups, never for one it holds.
      expect(counters.windowGroups).toBe(maxGroups);
      expect(asked.size).toBeGreaterThan(maxGroups);
    } else expect(admission.allowed).toBe(true);
    expect(counters.windowGroups).toBeLessThanOrEqual(Math.max(maxGroups, known));
    // The same group asked again at once is one it holds now, or one it still refuses.
    const again = counters.admitNow(check, [], now);
    expect(again.groupsFull).toBe(admission.groupsFull);
  }
});

it('keeps at most maxGroups budgets per policy and period: a new group is refused, a known one and the next period are not', () => {
  const counters = new MemoryCounters({ maxGroups: 2 });
  const budget = (group: string, period = '2026-11') => ({ policyId: 'u', group, period, limit: 10 });
  const charge = (group: string, period = '2026-11') => counters.chargeNow([], [{ policyId: 'u', group, period, endsAt: null, amount: 1, alertAt: null }], T0);
  for (const group of ['["a"]', '["b"]']) {
    expect(counters.admitNow([], [budget(group)], T0).allowed).toBe(true);
    charge(group);
  }
  const third = counters.admitNow([], [budget('["c"]')], T0);
  expect(third).toMatchObject({ allowed: false, groupsFull: 'u', budgets: [0] });
  expect(counters.admitNow([], [budget('["a"]')], T0)).toMatchObject({ allowed: true, budgets: [1] });
  // Another period counts its own groups.
  expect(counters.admitNow([], [budget('["c"]', '2026-12')], T0).allowed).toBe(true);
  // And 0 keeps every group.
  const unbounded = new MemoryCounters({ maxGroups: 0 });
  for (let i = 0; i < 50; i++) unbounded.chargeNow([], [{ policyId: 'u', group: `["${i}"]`, period: 'p', endsAt: null, amount: 1, alertAt: null }], T0);
  expect(unbounded.admitNow([], [budget('["new"]', 'p')], T0).allowed).toBe(true);
});
