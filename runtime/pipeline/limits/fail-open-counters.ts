// Redis counters that never fail a request: when a call to Redis fails (down, timed out), the same
// call goes to this process's own counters instead, so limits still hold per process (fail open,
// ARCHITECTURE §6), and the fallback is logged (once per outage) and counted in /metrics. What
// usage budgets were charged in the process meanwhile is added to Redis once it answers again: a
// budget's spend outlives the outage (a rate window's count does not matter a minute later).
import type { GatewayLogger } from '../../core/log.ts';
import { Outage } from '../../core/outage.ts';
import type { Admission, BudgetCharge, BudgetCheck, GroupCount, GroupFilter, LimitCounters, WindowCharge, WindowCheck } from './counters.ts';
import type { Page, PageRequest } from '../../store/page.ts';
import { MemoryCounters } from './memory-counters.ts';

const FALLBACK_NOTE = 'Redis failed or did not answer; limits count in this process only until it answers';

export class FailOpenCounters implements LimitCounters {
  readonly #shared: LimitCounters;
  /** Budget charges counted here while Redis was away, by (policy, period, group), owed to Redis. */
  #owed = new Map<string, BudgetCharge>();
  #paying = false;
  readonly #local: MemoryCounters;
  readonly #outage: Outage;
  readonly #onFallback: () => void;

  /** `maxGroups`: what this process's own counters keep per policy (GATEWAY_LIMIT_MAX_GROUPS). */
  constructor(shared: LimitCounters, logger: GatewayLogger, onFallback: () => void, maxGroups?: number) {
    this.#shared = shared;
    this.#local = new MemoryCounters({ onBudgetCharge: (charge) => this.#owe(charge), maxGroups });
    this.#outage = new Outage(logger, 'limits_fell_back_to_process', 'limits_shared_again');
    this.#onFallback = onFallback;
  }

  admit(windows: readonly WindowCheck[], budgets: readonly BudgetCheck[], now: number): Promise<Admission> {
    return this.#shared.admit(windows, budgets, now).then((admission) => this.#recovered(admission, now), (error) => this.#fallBack(error, () => this.#local.admitNow(windows, budgets, now)));
  }

  charge(windows: readonly WindowCharge[], budgets: readonly BudgetCharge[], now: number): Promise<Array<number | null>> {
    return this.#shared.charge(windows, budgets, now).then((crossed) => this.#recovered(crossed, now), (error) => this.#fallBack(error, () => this.#local.chargeNow(windows, budgets, now)));
  }

  /** Budget charges counted here and not yet added to Redis. */
  get owed(): number {
    return this.#owed.size;
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

  #recovered<T>(value: T, now: number): T {
    this.#outage.recovered();
    if (this.#owed.size > 0 && !this.#paying) this.#payBack(now);
    return value;
  }

  #owe(charge: BudgetCharge): void {
    const key = `${charge.policyId}\n${charge.period}\n${charge.group}`;
    const owed = this.#owed.get(key);
    // No alert on the way back: the process alerted (or not) on its own count when it charged.
    if (owed === undefined) this.#owed.set(key, { ...charge, alertAt: null });
    else owed.amount += charge.amount;
  }

  /** Adds what was charged here during the outage to Redis; what Redis refuses again stays owed. */
  #payBack(now: number): void {
    const owed = [...this.#owed.values()];
    this.#owed = new Map();
    this.#paying = true;
    this.#shared.charge([], owed, now).then(
      () => undefined,
      (error: unknown) => {
        for (const charge of owed) this.#owe(charge);
        this.#outage.failed(() => ({ error: (error as Error).message, note: FALLBACK_NOTE }));
      },
    ).finally(() => {
      this.#paying = false;
    });
  }

  #fallBack<T>(error: unknown, local: () => T): T {
    this.#onFallback();
    this.#outage.failed(() => ({ error: (error as Error).message, note: FALLBACK_NOTE }));
    return local();
  }
}
