// Redis counters that never fail a request: when a call to Redis fails (down, timed out), the same
// call goes to this process's own counters instead, so limits still hold per process (fail open,
// ARCHITECTURE §6), and the fallback is logged (once per outage) and counted in /metrics.
import type { GatewayLogger } from '../../core/log.ts';
import { Outage } from '../../core/outage.ts';
import type { Admission, BudgetCharge, BudgetCheck, GroupCount, GroupFilter, LimitCounters, WindowCharge, WindowCheck } from './counters.ts';
import type { Page, PageRequest } from '../../store/page.ts';
import { MemoryCounters } from './memory-counters.ts';

export class FailOpenCounters implements LimitCounters {
  readonly #shared: LimitCounters;
  readonly #local = new MemoryCounters();
  readonly #outage: Outage;
  readonly #onFallback: () => void;

  constructor(shared: LimitCounters, logger: GatewayLogger, onFallback: () => void) {
    this.#shared = shared;
    this.#outage = new Outage(logger, 'limits_fell_back_to_process', 'limits_shared_again');
    this.#onFallback = onFallback;
  }

  admit(windows: readonly WindowCheck[], budgets: readonly BudgetCheck[], now: number): Promise<Admission> {
    return this.#shared.admit(windows, budgets, now).then(this.#recovered, (error) => this.#fallBack(error, () => this.#local.admitNow(windows, budgets, now)));
  }

  charge(windows: readonly WindowCharge[], budgets: readonly BudgetCharge[], now: number): Promise<Array<number | null>> {
    return this.#shared.charge(windows, budgets, now).then(this.#recovered, (error) => this.#fallBack(error, () => this.#local.chargeNow(windows, budgets, now)));
  }

  windowUsage(policyId: string, windowMs: number, limit: number, now: number, page: PageRequest, keep: GroupFilter): Promise<Page<GroupCount>> {
    return this.#shared.windowUsage(policyId, windowMs, limit, now, page, keep);
  }

  budgetUsage(policyId: string, period: string, page: PageRequest, keep: GroupFilter): Promise<Page<GroupCount>> {
    return this.#shared.budgetUsage(policyId, period, page, keep);
  }

  async close(): Promise<void> {
    await this.#shared.close();
    await this.#local.close();
  }

  readonly #recovered = <T>(value: T): T => {
    this.#outage.recovered();
    return value;
  };

  #fallBack<T>(error: unknown, local: () => T): T {
    this.#onFallback();
    this.#outage.failed(() => ({ error: (error as Error).message, note: 'Redis failed or did not answer; limits count in this process only until it answers' }));
    return local();
  }
}
