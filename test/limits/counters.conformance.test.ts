// One conformance suite over every limit-counter backend (memory and Redis): the sliding window
// checked model-based (fc.commands, fake clock) against an exact log of admitted requests, atomic
// admission over several policies, budgets and their alert crossing (exactly once, concurrent
// charges included), periods kept apart, and the usage listings.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import type { LimitCounters } from '../../runtime/pipeline/limits/counters.ts';
import { ALL } from '../../runtime/store/page.ts';
import { bucketMsOf, WINDOW_BUCKETS } from '../../runtime/pipeline/limits/window.ts';
import { Redis } from 'ioredis';
import { COUNTER_BACKENDS, openCounters, type OpenedCounters, TEST_REDIS_URL } from './backends.ts';

const MINUTE = 60_000;
/** A start time on a bucket boundary far from 0, like a real clock. */
const T0 = 1_790_000_040_000;

/** The exact reference: every admitted request's time. */
class SlidingLog {
  readonly times: number[] = [];
  countIn(from: number, to: number): number {
    return this.times.filter((t) => t > from && t <= to).length;
  }
}

interface World {
  counters: LimitCounters;
  policyId: string;
  limit: number;
  now: number;
  log: SlidingLog;
}

class Advance implements fc.AsyncCommand<SlidingLog, World> {
  readonly ms: number;
  constructor(ms: number) {
    this.ms = ms;
  }
  check = (): boolean => true;
  async run(_m: SlidingLog, w: World): Promise<void> {
    w.now += this.ms;
  }
  toString = (): string => `advance(${this.ms})`;
}

class Request implements fc.AsyncCommand<SlidingLog, World> {
  check = (): boolean => true;
  async run(log: SlidingLog, w: World): Promise<void> {
    const admission = await w.counters.admit([{ policyId: w.policyId, group: '[]', windowMs: MINUTE, limit: w.limit, cost: 1 }], [], w.now);
    const state = admission.windows[0];
    if (admission.allowed) {
      log.times.push(w.now);
      // Never more than the limit in any window of W ending now (the bound a provider's quota needs).
      expect(log.countIn(w.now - MINUTE, w.now)).toBeLessThanOrEqual(w.limit);
      // The counter counts whole buckets: from the start of the bucket one window back.
      const bucket = bucketMsOf(MINUTE);
      const start = (Math.floor(w.now / bucket) - WINDOW_BUCKETS) * bucket;
      expect(state.used).toBe(log.times.filter((t) => t >= start && t <= w.now).length);
    } else {
      // A refusal is justified within one bucket: the exact log holds the limit over W plus one bucket.
      expect(log.countIn(w.now - MINUTE - bucketMsOf(MINUTE), w.now)).toBeGreaterThanOrEqual(w.limit);
      expect(state.retryAfterMs).not.toBeNull();
      expect(state.retryAfterMs!).toBeGreaterThan(0);
      expect(state.retryAfterMs!).toBeLessThanOrEqual(MINUTE + bucketMsOf(MINUTE));
      // Retry-After is exact for the counter: one ms earlier is still refused, at it a slot is free.
      // (The probes move the clock forward: a counter prunes what left the window, so time never goes back.)
      const early = await w.counters.admit([{ policyId: w.policyId, group: '[]', windowMs: MINUTE, limit: w.limit, cost: 0 }], [], w.now + state.retryAfterMs! - 1);
      expect(early.windows[0].used).toBeGreaterThanOrEqual(w.limit);
      const onTime = await w.counters.admit([{ policyId: w.policyId, group: '[]', windowMs: MINUTE, limit: w.limit, cost: 0 }], [], w.now + state.retryAfterMs!);
      expect(onTime.windows[0].used).toBeLessThan(w.limit);
      w.now += state.retryAfterMs!;
    }
  }
  toString = (): string => 'request()';
}

describe.each(COUNTER_BACKENDS)('limit counters on %s', (backend) => {
  let opened: OpenedCounters;
  beforeAll(async () => {
    opened = await openCounters(backend);
  });
  afterAll(async () => {
    await opened?.close();
  });

  const scenario = fc.tuple(
    fc.integer({ min: 1, max: 6 }),
    fc.commands([fc.constant(new Request()), fc.constant(new Request()), fc.constantFrom(1, 250, 999, 1000, 7_000, 30_000, 59_999, 60_000, 61_000).map((ms) => new Advance(ms))], { maxCommands: backend === 'redis' ? 40 : 80 }),
  );

  test.prop([scenario], { numRuns: backend === 'redis' ? 25 : 100 })('the window never admits more than the limit in any minute, and refuses only within one bucket of the exact count', async ([limit, commands]) => {
    const world: World = { counters: opened.counters, policyId: randomUUID(), limit, now: T0 + 1, log: new SlidingLog() };
    await fc.asyncModelRun(() => ({ model: world.log, real: world }), commands);
  });

  it('admits atomically over several windows: a refused request counts in none', async () => {
    const a = randomUUID();
    const b = randomUUID();
    const check = (limitB: number) => [
      { policyId: a, group: '[]', windowMs: MINUTE, limit: 10, cost: 1 },
      { policyId: b, group: '[]', windowMs: MINUTE, limit: limitB, cost: 1 },
    ];
    expect((await opened.counters.admit(check(1), [], T0)).allowed).toBe(true);
    const refused = await opened.counters.admit(check(1), [], T0 + 1);
    expect(refused.allowed).toBe(false);
    expect(refused.windows.map((w) => w.used)).toEqual([1, 1]);
    const later = await opened.counters.admit(check(5), [], T0 + 2);
    expect(later.windows.map((w) => w.used)).toEqual([2, 2]);
  });

  it('keeps groups apart and lists them with their counts', async () => {
    const id = randomUUID();
    for (const group of ['["a"]', '["a"]', '["b"]']) await opened.counters.admit([{ policyId: id, group, windowMs: MINUTE, limit: 5, cost: 1 }], [], T0);
    const usage = await opened.counters.windowUsage(id, MINUTE, 5, T0 + 10, ALL, null);
    expect(usage.total).toBe(2);
    expect(usage.items.map((g) => [g.group, g.used])).toEqual([['["a"]', 2], ['["b"]', 1]]);
    expect(usage.items.every((g) => g.resetMs! > 0 && g.resetMs! <= MINUTE + bucketMsOf(MINUTE))).toBe(true);
    expect(await opened.counters.windowUsage(id, MINUTE, 5, T0 + 2 * MINUTE, ALL, null)).toEqual({ items: [], total: 0 });
  });

  test.prop([fc.uniqueArray(fc.string({ maxLength: 4 }), { minLength: 0, maxLength: 25 }), fc.integer({ min: 1, max: 7 }), fc.boolean()], { numRuns: 8 })(
    'pages the usage listings: the pages, in order, are every group kept once, sorted, and total counts them all',
    async (names, size, filtered) => {
      const windowId = randomUUID();
      const budgetId = randomUUID();
      const groups = names.map((n) => JSON.stringify([n]));
      for (const group of groups) {
        await opened.counters.admit([{ policyId: windowId, group, windowMs: MINUTE, limit: 5, cost: 1 }], [], T0);
        await opened.counters.charge([], [{ policyId: budgetId, group, period: 'all', endsAt: null, amount: 1, alertAt: null }], T0);
      }
      // Filtered: the groups whose value has an even length (any predicate over the group string).
      const keep = filtered ? (group: string) => (JSON.parse(group) as string[])[0].length % 2 === 0 : null;
      const sorted = groups.filter((group) => keep === null || keep(group)).sort();
      for (const list of [(page: { limit: number; offset: number }) => opened.counters.windowUsage(windowId, MINUTE, 5, T0 + 10, page, keep), (page: { limit: number; offset: number }) => opened.counters.budgetUsage(budgetId, 'all', page, keep)]) {
        const seen: string[] = [];
        for (let offset = 0; ; offset += size) {
          const page = await list({ limit: size, offset });
          expect(page.total).toBe(sorted.length);
          expect(page.items.length).toBe(Math.max(0, Math.min(size, sorted.length - offset)));
          expect(page.items.every((g) => g.used === 1)).toBe(true);
          seen.push(...page.items.map((g) => g.group));
          if (page.items.length < size) break;
        }
        expect(seen).toEqual(sorted);
      }
    },
  );

  it('forgets groups whose window emptied while others keep the policy busy (one group per user must not pile up)', async () => {
    const id = randomUUID();
    const admit = (group: string, at: number) => opened.counters.admit([{ policyId: id, group, windowMs: MINUTE, limit: 5, cost: 1 }], [], at);
    for (let i = 0; i < 40; i++) await admit(`["u${i}"]`, T0 + i);
    // Later, one new user: every earlier window has expired.
    await admit('["late"]', T0 + 2 * MINUTE);
    expect((await opened.counters.windowUsage(id, MINUTE, 5, T0 + 2 * MINUTE, ALL, null)).items.map((g) => g.group)).toEqual(['["late"]']);
    if (backend === 'redis') {
      // What Redis holds for the listing: the live group only (a plain set kept all 41 while written to).
      const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
      try {
        expect(await redis.zrange(`gw:lim:wz:${id}`, '0', '-1')).toEqual(['["late"]']);
      } finally {
        await redis.quit();
      }
    }
  });

  it('charges tokens into the window after the answer; a tokens check refuses once they reach the limit', async () => {
    const id = randomUUID();
    const check = [{ policyId: id, group: '[]', windowMs: MINUTE, limit: 100, cost: 0 }];
    expect((await opened.counters.admit(check, [], T0)).allowed).toBe(true);
    await opened.counters.charge([{ policyId: id, group: '[]', windowMs: MINUTE, amount: 60 }], [], T0);
    expect((await opened.counters.admit(check, [], T0 + 1)).allowed).toBe(true);
    await opened.counters.charge([{ policyId: id, group: '[]', windowMs: MINUTE, amount: 60 }], [], T0 + 1);
    const refused = await opened.counters.admit(check, [], T0 + 2);
    expect(refused.allowed).toBe(false);
    expect(refused.windows[0].used).toBe(120);
    expect((await opened.counters.admit(check, [], T0 + MINUTE + bucketMsOf(MINUTE) + 2)).allowed).toBe(true);
  });

  it('keeps at most maxGroups groups a policy: a new group past them is refused (groupsFull) and kept nowhere, known ones are not, and room comes back as windows empty', async () => {
    const bounded = await openCounters(backend, { maxGroups: 3 });
    try {
      const id = randomUUID();
      const other = randomUUID();
      const admit = (group: string, at: number, policyId = id) => bounded.counters.admit([{ policyId, group, windowMs: MINUTE, limit: 5, cost: 1 }], [], at);
      for (const group of ['["a"]', '["b"]', '["c"]']) expect((await admit(group, T0)).allowed).toBe(true);
      const refused = await admit('["d"]', T0 + 1);
      expect(refused).toMatchObject({ allowed: false, groupsFull: id });
      expect(refused.windows[0]!.used).toBe(0);
      expect((await admit('["a"]', T0 + 2)).groupsFull).toBeUndefined();
      expect((await bounded.counters.windowUsage(id, MINUTE, 5, T0 + 3, ALL, null)).items.map((g) => g.group)).toEqual(['["a"]', '["b"]', '["c"]']);
      // Another policy has room of its own; once the windows emptied, the policy has room again.
      expect((await admit('["d"]', T0 + 3, other)).allowed).toBe(true);
      expect((await admit('["d"]', T0 + 3 * MINUTE)).allowed).toBe(true);

      const budget = (group: string, period = 'm2026-11') => ({ policyId: id, group, period, limit: 10 });
      const charge = (group: string, period = 'm2026-11') => bounded.counters.charge([], [{ policyId: id, group, period, endsAt: null, amount: 1, alertAt: null }], T0);
      for (const group of ['["a"]', '["b"]', '["c"]']) await charge(group);
      expect(await bounded.counters.admit([], [budget('["d"]')], T0)).toMatchObject({ allowed: false, groupsFull: id, budgets: [0] });
      expect(await bounded.counters.admit([], [budget('["a"]')], T0)).toMatchObject({ allowed: true, budgets: [1] });
      expect((await bounded.counters.admit([], [budget('["d"]', 'm2026-12')], T0)).allowed).toBe(true);
      // 0: no bound.
      const unbounded = await openCounters(backend, { maxGroups: 0 });
      try {
        expect((await unbounded.counters.admit([], [budget('["e"]')], T0)).allowed).toBe(true);
      } finally {
        await unbounded.close();
      }
    } finally {
      await bounded.close();
    }
  });

  it('a budget refuses once used reaches the limit, and periods count apart', async () => {
    const id = randomUUID();
    const budget = (period: string) => ({ policyId: id, group: '[]', period, limit: 1 });
    const charge = (period: string, amount: number) => ({ policyId: id, group: '[]', period, endsAt: T0 + MINUTE, amount, alertAt: null });
    await opened.counters.charge([], [charge('m2026-11', 0.6)], T0);
    expect(await opened.counters.admit([], [budget('m2026-11')], T0)).toMatchObject({ allowed: true, budgets: [0.6] });
    await opened.counters.charge([], [charge('m2026-11', 0.4)], T0);
    expect(await opened.counters.admit([], [budget('m2026-11')], T0)).toMatchObject({ allowed: false, budgets: [1] });
    expect(await opened.counters.admit([], [budget('m2026-12')], T0)).toMatchObject({ allowed: true, budgets: [0] });
    expect(await opened.counters.budgetUsage(id, 'm2026-11', ALL, null)).toEqual({ items: [{ group: '[]', used: 1 }], total: 1 });
  });

  it('reports the alert crossing for exactly one of many concurrent charges', async () => {
    const id = randomUUID();
    const charges = Array.from({ length: 40 }, () => opened.counters.charge([], [{ policyId: id, group: '[]', period: 'all', endsAt: null, amount: 1, alertAt: 25 }], T0));
    const crossed = (await Promise.all(charges)).map((c) => c[0]).filter((after) => after !== null);
    expect(crossed).toEqual([25]);
    // Past the threshold nothing crosses again.
    expect(await opened.counters.charge([], [{ policyId: id, group: '[]', period: 'all', endsAt: null, amount: 1, alertAt: 25 }], T0)).toEqual([null]);
  });
});
