// Usage budgets counted in memory survive a restart through their journal in the store (SQLite
// here; the store itself runs on both backends in test/store/usage-budgets.conformance.test.ts): a
// group that spent its budget is still refused by a fresh process, a write the store refuses is kept
// and written later, and, whatever fails in between, the store ends up holding every charge once.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc } from '@fast-check/vitest';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { GatewayLogger } from '../../runtime/core/log.ts';
import { BudgetJournal, WRITE_CHUNK } from '../../runtime/pipeline/limits/budget-journal.ts';
import type { BudgetCharge } from '../../runtime/pipeline/limits/counters.ts';
import { MemoryCounters } from '../../runtime/pipeline/limits/memory-counters.ts';
import { type GatewayStore, openStore } from '../../runtime/store/open-store.ts';
import type { BudgetSpend, UsageBudgetStore } from '../../runtime/store/usage-budget-store.ts';
import { ALL } from '../../runtime/store/page.ts';

const NOW = Date.UTC(2026, 10, 27, 12);
const MONTH_END = Date.UTC(2026, 11, 1);

let dir: string;
let store: GatewayStore;
/** The usage-limits policy the charges are for: the store keeps budgets only of policies that exist. */
let P: string;

/** A usage-limits policy in the store. */
async function newPolicy(): Promise<string> {
  return (await store.usageLimits.create({ name: null, type: 'cost', creditLimit: 10, alertThreshold: null, periodicReset: null, conditions: [], groupBy: [], organisationId: 'org', workspaceId: 'ws' })).id;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'budget-journal-'));
  store = openStore(dir);
  P = await newPolicy();
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function charge(group: string, amount: number, extra: Partial<BudgetCharge> = {}): BudgetCharge {
  return { policyId: P, group, period: 'm2026-11', endsAt: MONTH_END, amount, alertAt: null, ...extra };
}

/** The real store, refusing writes while `failing` is set or from write number `failFrom` on, and counting the writes it was asked for. */
function flaky(inner: UsageBudgetStore): UsageBudgetStore & { failing: boolean; failFrom: number; adds: number } {
  return {
    failing: false,
    failFrom: Infinity,
    adds: 0,
    async add(spends: readonly BudgetSpend[]) {
      this.adds++;
      if (this.failing || this.adds >= this.failFrom) throw new Error('store unavailable');
      return inner.add(spends);
    },
    load: (now) => inner.load(now),
    deleteEnded: (before, limit) => inner.deleteEnded(before, limit),
  };
}

function recordingLogger(): GatewayLogger & { events: string[] } {
  const events: string[] = [];
  return { events, info: (event) => events.push(event), warn: (event) => events.push(event), error: (event) => events.push(event) };
}

it('a group that spent its budget is still refused after a restart; one with budget left keeps what it spent', async () => {
  const journal = new BudgetJournal(store.usageBudgets, recordingLogger(), () => NOW);
  const before = new MemoryCounters({ onBudgetCharge: journal.note });
  before.chargeNow([], [charge('["spent"]', 6), charge('["spent"]', 5), charge('["some"]', 2), charge('["cumulative"]', 4, { period: 'all', endsAt: null })], NOW);
  await journal.close();

  const after = new MemoryCounters();
  expect(await new BudgetJournal(store.usageBudgets, recordingLogger(), () => NOW).restore(after)).toHaveLength(3);
  const budget = (group: string, period = 'm2026-11') => ({ policyId: P, group, period, limit: 10 });
  expect(after.admitNow([], [budget('["spent"]')], NOW)).toMatchObject({ allowed: false, budgets: [11] });
  expect(after.admitNow([], [budget('["some"]')], NOW)).toMatchObject({ allowed: true, budgets: [2] });
  expect(after.admitNow([], [budget('["cumulative"]', 'all')], NOW)).toMatchObject({ allowed: true, budgets: [4] });
  expect((await after.budgetUsage(P, 'm2026-11', ALL, null)).items).toEqual([{ group: '["some"]', used: 2 }, { group: '["spent"]', used: 11 }]);
});

it('a group this process charges is raised to what every process sharing the store spent, plus what it charged since', async () => {
  const other = openStore(dir);
  try {
    const journalA = new BudgetJournal(store.usageBudgets, recordingLogger(), () => NOW);
    const a = new MemoryCounters({ onBudgetCharge: journalA.note });
    await journalA.restore(a);
    const journalB = new BudgetJournal(other.usageBudgets, recordingLogger(), () => NOW);
    const b = new MemoryCounters({ onBudgetCharge: journalB.note });
    await journalB.restore(b);
    const used = (counters: MemoryCounters) => counters.admitNow([], [{ policyId: P, group: '["g"]', period: 'm2026-11', limit: 100 }], NOW).budgets[0];

    a.chargeNow([], [charge('["g"]', 5)], NOW);
    await journalA.write();
    b.chargeNow([], [charge('["g"]', 7)], NOW);
    const writing = journalB.write();
    // Charged while b's write is in flight: not in the store's total yet, and not lost from b's count.
    b.chargeNow([], [charge('["g"]', 1)], NOW);
    await writing;
    expect(used(b)).toBe(13);
    // a sees b's written 7, not the 1 b has yet to write.
    a.chargeNow([], [charge('["g"]', 0.5)], NOW);
    await journalA.write();
    expect(used(a)).toBe(12.5);
    await journalB.close();
    expect(await store.usageBudgets.load(NOW)).toEqual([{ policyId: P, period: 'm2026-11', group: '["g"]', used: 13.5, endsAt: MONTH_END }]);
  } finally {
    await other.close();
  }
});

it('a period that is over is not restored, and a restored group that crossed its alert does not alert again', async () => {
  const journal = new BudgetJournal(store.usageBudgets, recordingLogger(), () => NOW);
  const counters = new MemoryCounters({ onBudgetCharge: journal.note });
  counters.chargeNow([], [charge('["g"]', 3, { period: 'm2026-10', endsAt: Date.UTC(2026, 10, 1) }), charge('["g"]', 8)], NOW);
  await journal.write();
  const restarted = new MemoryCounters();
  await new BudgetJournal(store.usageBudgets, recordingLogger(), () => NOW).restore(restarted);
  expect(await restarted.budgetUsage(P, 'm2026-10', ALL, null)).toEqual({ items: [], total: 0 });
  // 8 already at or over the threshold of 5: charging more is not a crossing.
  expect(restarted.chargeNow([], [charge('["g"]', 1, { alertAt: 5 })], NOW)).toEqual([null]);
});

it('charges of a policy deleted meanwhile are dropped, not written back and not kept', async () => {
  const journal = new BudgetJournal(store.usageBudgets, recordingLogger(), () => NOW);
  const counters = new MemoryCounters({ onBudgetCharge: journal.note });
  await journal.restore(counters);
  const kept = await newPolicy();
  counters.chargeNow([], [charge('["g"]', 3), charge('["g"]', 2, { policyId: kept })], NOW);
  await store.usageLimits.delete(P);
  await journal.write();
  expect(journal.pending).toBe(0);
  expect(await store.usageBudgets.load(NOW)).toEqual([{ policyId: kept, period: 'm2026-11', group: '["g"]', used: 2, endsAt: MONTH_END }]);
});

it('writes nothing when nothing was charged, and ignores charges of nothing', async () => {
  const backing = flaky(store.usageBudgets);
  const journal = new BudgetJournal(backing, recordingLogger(), () => NOW);
  journal.note(charge('["g"]', 0));
  await journal.write();
  expect(backing.adds).toBe(0);
  expect(journal.pending).toBe(0);
});

it('a write the store refuses is kept for the next one, logged once until it recovers', async () => {
  const backing = flaky(store.usageBudgets);
  const logger = recordingLogger();
  const journal = new BudgetJournal(backing, logger, () => NOW);
  backing.failing = true;
  journal.note(charge('["g"]', 1));
  await journal.write();
  journal.note(charge('["g"]', 2));
  await journal.write();
  expect(logger.events.filter((e) => e === 'usage_budgets_write_failed')).toHaveLength(1);
  backing.failing = false;
  await journal.close();
  expect(logger.events).toContain('usage_budgets_write_recovered');
  expect(await store.usageBudgets.load(NOW)).toEqual([{ policyId: P, period: 'm2026-11', group: '["g"]', used: 3, endsAt: MONTH_END }]);
});

it('a stop the store refuses keeps the spends in a file, which the next start adds once, so a spent budget stays spent', async () => {
  const backing = flaky(store.usageBudgets);
  const logger = recordingLogger();
  const journal = new BudgetJournal(backing, logger, () => NOW, dir);
  backing.failing = true;
  journal.note(charge('["spent"]', 7));
  await journal.write();
  journal.note(charge('["spent"]', 4));
  await journal.close();
  expect(logger.events).toEqual(['usage_budgets_write_failed', 'usage_budgets_spilled']);
  expect(readdirSync(dir).filter((name) => name.startsWith('usage-budgets-pending-'))).toHaveLength(1);
  expect(await store.usageBudgets.load(NOW)).toEqual([]);

  // The next start, its store back: the spends are added, the file deleted, the group refused.
  const after = new MemoryCounters();
  const restarted = recordingLogger();
  expect(await new BudgetJournal(store.usageBudgets, restarted, () => NOW, dir).restore(after)).toHaveLength(1);
  expect(restarted.events).toEqual(['pending_writes_restored']);
  expect(readdirSync(dir).filter((name) => name.startsWith('usage-budgets-pending-'))).toEqual([]);
  expect(after.admitNow([], [{ policyId: P, group: '["spent"]', period: 'm2026-11', limit: 10 }], NOW)).toMatchObject({ allowed: false, budgets: [11] });
  // A second start adds nothing again.
  expect(await new BudgetJournal(store.usageBudgets, recordingLogger(), () => NOW, dir).restore(new MemoryCounters())).toHaveLength(1);
  expect(await store.usageBudgets.load(NOW)).toEqual([{ policyId: P, period: 'm2026-11', group: '["spent"]', used: 11, endsAt: MONTH_END }]);
});

it('spends kept by a stop are added when a journal\'s writes recover, and counted', async () => {
  const backing = flaky(store.usageBudgets);
  const stopping = new BudgetJournal(backing, recordingLogger(), () => NOW, dir);
  backing.failing = true;
  stopping.note(charge('["kept"]', 5));
  await stopping.close();
  // A process starting while its store refuses writes: the file stays.
  const logger = recordingLogger();
  const journal = new BudgetJournal(backing, logger, () => NOW, dir);
  const counters = new MemoryCounters({ onBudgetCharge: journal.note });
  await journal.restore(counters);
  expect(logger.events).toEqual(['pending_writes_failed']);
  counters.chargeNow([], [charge('["other"]', 1)], NOW);
  await journal.write();
  // The store answers again: the kept spends go in with this process's, and are counted here.
  backing.failing = false;
  await journal.write();
  expect(logger.events).toEqual(['pending_writes_failed', 'usage_budgets_write_failed', 'usage_budgets_write_recovered', 'pending_writes_restored']);
  expect(readdirSync(dir).filter((name) => name.startsWith('usage-budgets-pending-'))).toEqual([]);
  expect(counters.admitNow([], [{ policyId: P, group: '["kept"]', period: 'm2026-11', limit: 10 }], NOW)).toMatchObject({ budgets: [5] });
});

it('many groups are written a slice at a time, letting the event loop in between; a slice that fails is kept with the rest', async () => {
  const backing = flaky(store.usageBudgets);
  const journal = new BudgetJournal(backing, recordingLogger(), () => NOW);
  const groups = WRITE_CHUNK * 2 + 44;
  for (let i = 0; i < groups; i++) journal.note(charge(`["u${i}"]`, 1));
  // The second slice fails: the first is in the store, the second and third are still to write.
  backing.failFrom = 2;
  const order: string[] = [];
  setImmediate(() => order.push('event loop'));
  await journal.write();
  order.push('written');
  expect(order).toEqual(['event loop', 'written']);
  expect(await store.usageBudgets.load(NOW)).toHaveLength(WRITE_CHUNK);
  expect(journal.pending).toBe(groups - WRITE_CHUNK);
  backing.failFrom = Infinity;
  await journal.write();
  const stored = await store.usageBudgets.load(NOW);
  expect(stored).toHaveLength(groups);
  expect(stored.every((s) => s.used === 1)).toBe(true);
});

it('property: whatever writes fail, with charges landing while one is in flight, the store ends up holding every charge exactly once', async () => {
  const step = fc.oneof(
    fc.record({ kind: fc.constant('charge' as const), group: fc.constantFrom('["a"]', '["b"]', '["c"]'), amount: fc.integer({ min: 1, max: 4096 }).map((n) => n / 64) }),
    // `during`: a charge lands while the write is in flight (it must not be lost if the write fails).
    fc.record({ kind: fc.constant('write' as const), fails: fc.boolean(), during: fc.option(fc.integer({ min: 1, max: 4096 }).map((n) => n / 64)) }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(step, { maxLength: 30 }), async (steps) => {
      const policyId = await newPolicy();
      const backing = flaky(store.usageBudgets);
      const journal = new BudgetJournal(backing, recordingLogger(), () => NOW);
      const counters = new MemoryCounters({ onBudgetCharge: journal.note });
      const expected = new Map<string, number>();
      for (const s of steps) {
        if (s.kind === 'charge') {
          counters.chargeNow([], [charge(s.group, s.amount, { policyId })], NOW);
          expected.set(s.group, (expected.get(s.group) ?? 0) + s.amount);
        } else {
          backing.failing = s.fails;
          const writing = journal.write();
          if (s.during !== null) {
            counters.chargeNow([], [charge('["a"]', s.during, { policyId })], NOW);
            expected.set('["a"]', (expected.get('["a"]') ?? 0) + s.during);
          }
          await writing;
        }
      }
      backing.failing = false;
      await journal.close();
      const stored = (await store.usageBudgets.load(NOW)).filter((s) => s.policyId === policyId);
      expect(new Map(stored.map((s) => [s.group, s.used]))).toEqual(expected);
      expect(journal.pending).toBe(0);
    }),
    { numRuns: 60, seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31), verbose: 1 },
  );
});
