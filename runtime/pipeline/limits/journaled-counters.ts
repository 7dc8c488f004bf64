// Shared counters whose usage-budget charges are also noted in the store's journal
// (budget-journal.ts): with Redis the counts requests are checked against live in Redis, and the
// store keeps what every group spent, so a Redis that loses its data (a restart without persistence,
// a flush) is seeded back from it instead of starting every budget over. Each charge is noted here
// once, whether Redis took it or the process counted it while Redis was away.
import type { Admission, BudgetCharge, BudgetCheck, GroupCount, GroupFilter, LimitCounters, WindowCharge, WindowCheck } from './counters.ts';
import type { Page, PageRequest } from '../../store/page.ts';

export class JournaledCounters implements LimitCounters {
  readonly #counters: LimitCounters;
  readonly #note: (charge: BudgetCharge) => void;

  constructor(counters: LimitCounters, note: (charge: BudgetCharge) => void) {
    this.#counters = counters;
    this.#note = note;
  }

  admit(windows: readonly WindowCheck[], budgets: readonly BudgetCheck[], now: number): Promise<Admission> {
    return this.#counters.admit(windows, budgets, now);
  }

  charge(windows: readonly WindowCharge[], budgets: readonly BudgetCharge[], now: number): Promise<Array<number | null>> {
    for (const charge of budgets) this.#note(charge);
    return this.#counters.charge(windows, budgets, now);
  }

  windowUsage(policyId: string, windowMs: number, limit: number, now: number, page: PageRequest, keep: GroupFilter): Promise<Page<GroupCount>> {
    return this.#counters.windowUsage(policyId, windowMs, limit, now, page, keep);
  }

  budgetUsage(policyId: string, period: string, page: PageRequest, keep: GroupFilter): Promise<Page<GroupCount>> {
    return this.#counters.budgetUsage(policyId, period, page, keep);
  }

  close(): Promise<void> {
    return this.#counters.close();
  }
}
