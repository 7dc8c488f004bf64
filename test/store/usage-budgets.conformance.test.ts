// The usage-budget journal's store, run against SQLite and PostgreSQL: `add` adds (never sets), so
// two processes sharing a store sum their spends; `load` returns the budgets of periods not over;
// `deleteEnded` forgets only those over. A property checks the stored totals against a plain sum.
import { randomUUID } from 'node:crypto';
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BudgetSpend } from '../../runtime/store/usage-budget-store.ts';
import { BACKENDS, storeForSuite } from './backends.ts';

const NOW = Date.UTC(2026, 10, 27, 12);
const MONTH_END = Date.UTC(2026, 11, 1);

function spend(policyId: string, extra: Partial<BudgetSpend> = {}): BudgetSpend {
  return { policyId, period: 'm2026-11', group: '["k1"]', used: 1, endsAt: MONTH_END, ...extra };
}

function mine(spends: BudgetSpend[], policyId: string): BudgetSpend[] {
  return spends.filter((s) => s.policyId === policyId).sort((a, b) => `${a.period}${a.group}`.localeCompare(`${b.period}${b.group}`));
}

describe.each(BACKENDS)('UsageBudgetStore on %s', (backend) => {
  const ctx = storeForSuite(backend, { beforeAll, afterAll });

  /** A usage-limits policy in the store: budgets are kept only for policies that exist. */
  async function newPolicy(): Promise<string> {
    const owner = { organisationId: randomUUID(), workspaceId: randomUUID() };
    return (await ctx.store.usageLimits.create({ name: null, type: 'cost', creditLimit: 10, alertThreshold: null, periodicReset: null, conditions: [], groupBy: [], ...owner })).id;
  }

  it('adds spends to what is stored, per policy, period and group, fractions of a cent included', async () => {
    const policy = await newPolicy();
    await ctx.store.usageBudgets.add([spend(policy, { used: 0.000125 }), spend(policy, { group: '["k2"]', used: 3 })]);
    await ctx.store.usageBudgets.add([spend(policy, { used: 0.000375 }), spend(policy, { period: 'all', endsAt: null, used: 7 })]);
    const loaded = mine(await ctx.store.usageBudgets.load(NOW), policy);
    expect(loaded).toHaveLength(3);
    expect(loaded[0]).toEqual(spend(policy, { period: 'all', endsAt: null, used: 7 }));
    expect(loaded[1]).toEqual(spend(policy, { used: expect.closeTo(0.0005, 12) }));
    expect(loaded[2]).toEqual(spend(policy, { group: '["k2"]', used: 3 }));
    await ctx.store.usageBudgets.add([]);
  });

  it("returns each budget's total after the add, in the order given, what other processes added included", async () => {
    const policy = await newPolicy();
    expect(await ctx.store.usageBudgets.add([spend(policy, { group: '["z"]', used: 2 }), spend(policy, { group: '["a"]', used: 3 })])).toEqual([2, 3]);
    const other = await ctx.location.open();
    try {
      expect(await other.usageBudgets.add([spend(policy, { group: '["a"]', used: 1 }), spend(policy, { group: '["z"]', used: 5 }), spend(policy, { group: '["new"]', used: 0.25 })])).toEqual([4, 7, 0.25]);
    } finally {
      await other.close();
    }
    expect(await ctx.store.usageBudgets.add([])).toEqual([]);
  });

  it('two processes on one store add their spends up; neither overwrites the other', async () => {
    const policy = await newPolicy();
    const other = await ctx.location.open();
    try {
      await Promise.all([ctx.store.usageBudgets.add([spend(policy, { used: 2 })]), other.usageBudgets.add([spend(policy, { used: 5 })])]);
      expect(mine(await other.usageBudgets.load(NOW), policy)).toEqual([spend(policy, { used: 7 })]);
    } finally {
      await other.close();
    }
  });

  it('two processes writing the same groups in opposite orders at once never deadlock', async () => {
    const policy = await newPolicy();
    const groups = Array.from({ length: 40 }, (_, i) => spend(policy, { group: `["g${i}"]` }));
    const other = await ctx.location.open();
    try {
      for (let round = 0; round < 5; round++) {
        await Promise.all([ctx.store.usageBudgets.add(groups), other.usageBudgets.add([...groups].reverse())]);
      }
      const loaded = mine(await ctx.store.usageBudgets.load(NOW), policy);
      expect(loaded).toHaveLength(40);
      expect(loaded.every((s) => s.used === 10)).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('loads only periods not over, and deletes only those over before the cut', async () => {
    const policy = await newPolicy();
    const lastWeek = spend(policy, { period: 'w2026-11-16', endsAt: Date.UTC(2026, 10, 23) });
    const lastMonth = spend(policy, { period: 'm2026-10', endsAt: Date.UTC(2026, 10, 1) });
    await ctx.store.usageBudgets.add([lastWeek, lastMonth, spend(policy), spend(policy, { period: 'all', endsAt: null })]);
    expect(mine(await ctx.store.usageBudgets.load(NOW), policy).map((s) => s.period)).toEqual(['all', 'm2026-11']);
    // Before the cut: last month's; last week's ended after it and stays until a later cut.
    expect(await ctx.store.usageBudgets.deleteEnded(Date.UTC(2026, 10, 10), 1_000_000)).toBeGreaterThanOrEqual(1);
    expect(mine(await ctx.store.usageBudgets.load(0), policy).map((s) => s.period)).toEqual(['all', 'm2026-11', 'w2026-11-16']);
    await ctx.store.usageBudgets.deleteEnded(NOW, 1_000_000);
    expect(mine(await ctx.store.usageBudgets.load(0), policy).map((s) => s.period)).toEqual(['all', 'm2026-11']);
  });

  it('deletes ended budgets at most a given number at a time', async () => {
    const policy = await newPolicy();
    const ended = Array.from({ length: 7 }, (_, i) => spend(policy, { period: 'm2020-01', group: `["g${i}"]`, endsAt: Date.UTC(2020, 1, 1) }));
    await ctx.store.usageBudgets.add([...ended, spend(policy)]);
    const cut = Date.UTC(2020, 6, 1);
    // Other tests' ended budgets may share the store: count this policy's only.
    const left = async () => mine(await ctx.store.usageBudgets.load(0), policy).filter((s) => s.period === 'm2020-01').length;
    expect(await ctx.store.usageBudgets.deleteEnded(cut, 3)).toBe(3);
    for (let n = 3; n === 3; ) n = await ctx.store.usageBudgets.deleteEnded(cut, 3);
    expect(await left()).toBe(0);
    expect(mine(await ctx.store.usageBudgets.load(NOW), policy)).toHaveLength(1);
  });

  it('deleting a usage-limits policy deletes what its groups spent', async () => {
    const policy = await newPolicy();
    const kept = await newPolicy();
    await ctx.store.usageBudgets.add([spend(policy, { period: 'all', endsAt: null }), spend(kept)]);
    expect(await ctx.store.usageLimits.delete(policy)).toBe(true);
    const left = await ctx.store.usageBudgets.load(NOW);
    expect(mine(left, policy)).toEqual([]);
    expect(mine(left, kept)).toHaveLength(1);
    // A process that still charged the deleted policy writes nothing for it, and is told so.
    expect(await ctx.store.usageBudgets.add([spend(policy, { used: 4 }), spend(kept, { used: 2 })])).toEqual([null, 3]);
    expect(mine(await ctx.store.usageBudgets.load(NOW), policy)).toEqual([]);
  });

  it('deleting policies while other connections write their spends: no deadlock, and no spend of a deleted policy left behind', async () => {
    const writers = await Promise.all([ctx.location.open(), ctx.location.open()]);
    try {
      for (let round = 0; round < 4; round++) {
        const policies = await Promise.all(Array.from({ length: 4 }, () => newPolicy()));
        const rows = policies.flatMap((policy) => Array.from({ length: 10 }, (_, i) => spend(policy, { group: `["g${i}"]` })));
        await Promise.all([
          ...writers.map((writer, w) => writer.usageBudgets.add(w === 0 ? rows : [...rows].reverse())),
          ...policies.slice(0, 2).map((policy) => ctx.store.usageLimits.delete(policy)),
        ]);
        const left = await ctx.store.usageBudgets.load(NOW);
        for (const deleted of policies.slice(0, 2)) expect(mine(left, deleted)).toEqual([]);
        for (const live of policies.slice(2)) expect(mine(left, live).map((s) => s.used)).toEqual(Array(10).fill(2));
      }
    } finally {
      await Promise.all(writers.map((writer) => writer.close()));
    }
  });

  it('property: after any sequence of adds, each budget holds the sum of its spends', async () => {
    const group = fc.constantFrom('["a"]', '["b"]', '["c \\"quoted\\""]');
    const period = fc.constantFrom('all', 'm2026-11');
    const amount = fc.integer({ min: 1, max: 1_000_000 }).map((n) => n / 1024);
    const batches = fc.array(fc.array(fc.record({ group, period, amount }), { maxLength: 6 }), { minLength: 1, maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(batches, async (adds) => {
        const policy = await newPolicy();
        const expected = new Map<string, number>();
        for (const batch of adds) {
          await ctx.store.usageBudgets.add(batch.map((a) => spend(policy, { group: a.group, period: a.period, used: a.amount, endsAt: a.period === 'all' ? null : MONTH_END })));
          for (const a of batch) expected.set(`${a.period} ${a.group}`, (expected.get(`${a.period} ${a.group}`) ?? 0) + a.amount);
        }
        const loaded = mine(await ctx.store.usageBudgets.load(NOW), policy);
        expect(new Map(loaded.map((s) => [`${s.period} ${s.group}`, s.used]))).toEqual(expected);
      }),
      { numRuns: 25, seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31), verbose: 1 },
    );
  });
});
