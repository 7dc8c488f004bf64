// With Redis, every usage-budget charge is noted in the store's journal once, whichever counters
// took it (Redis, or the process while Redis was away); admissions and rate windows are not.
import { expect, it } from 'vitest';
import { JournaledCounters } from '../../runtime/pipeline/limits/journaled-counters.ts';
import { MemoryCounters } from '../../runtime/pipeline/limits/memory-counters.ts';
import type { BudgetCharge } from '../../runtime/pipeline/limits/counters.ts';

it('notes each budget charge once and passes every call on', async () => {
  const noted: BudgetCharge[] = [];
  const counters = new JournaledCounters(new MemoryCounters(), (charge) => void noted.push(charge));
  const budget: BudgetCharge = { policyId: 'p', period: 'all', group: '[]', endsAt: null, amount: 3, alertAt: null };
  expect((await counters.admit([{ policyId: 'w', group: '[]', windowMs: 60_000, limit: 5, cost: 1 }], [{ policyId: 'p', period: 'all', group: '[]', limit: 10 }], 1000)).allowed).toBe(true);
  await counters.charge([{ policyId: 'w', group: '[]', windowMs: 60_000, amount: 2 }], [budget, { ...budget, group: '["b"]' }], 1000);
  expect(noted).toEqual([budget, { ...budget, group: '["b"]' }]);
  expect((await counters.budgetUsage('p', 'all', { limit: null, offset: 0 }, null)).items).toEqual([{ group: '["b"]', used: 3 }, { group: '[]', used: 3 }].sort((a, b) => a.group.localeCompare(b.group)));
});
