// Limit counters in this process's memory: the default, and what the Redis counters fall back to
// while Redis cannot be reached. Rate windows keep at most 61 buckets each (window.ts); a group's
// window is dropped once empty, a budget once its period is over. Groups come from what clients send
// (metadata, users): a policy's idle groups are swept whenever its group count has doubled since the
// last sweep, and a policy keeps at most `maxGroups` (GATEWAY_LIMIT_MAX_GROUPS) rate windows, and
// budgets per period: a request of a new group past that is refused, so a client inventing a group
// per request cannot grow the process without bound, even with windows a day long or budgets kept
// for ever (Redis counters keep the same bound).
import { type Admission, type BudgetCharge, type BudgetCheck, DEFAULT_MAX_GROUPS, type GroupCount, type GroupFilter, type LimitCounters, type WindowCharge, type WindowCheck } from './counters.ts';
import type { BudgetSpend } from '../../store/usage-budget-store.ts';
import { type Page, type PageRequest, sortedPage } from '../../store/page.ts';
import { admittedState, bucketAt, fits, pruneBuckets, windowState } from './window.ts';

interface Budget {
  used: number;
  endsAt: number | null;
}

/** A policy's rate windows: group → buckets, and the group count at which idle groups are swept next. */
interface PolicyWindows {
  groups: Map<string, Map<number, number>>;
  sweepAt: number;
  /** The bucket (bucketAt) of the last sweep: groups fall idle only as buckets pass, so a second sweep in one finds nothing. */
  sweptBucket: number;
}

/** Groups a policy may hold before its first sweep. */
const FIRST_SWEEP = 1024;

export class MemoryCounters implements LimitCounters {
  /** policy id → its groups' buckets. */
  readonly #windows = new Map<string, PolicyWindows>();
  /** policy id → period → group → budget. */
  readonly #budgets = new Map<string, Map<string, Map<string, Budget>>>();
  /** Told of every budget charge once counted (the store's journal, budget-journal.ts); null: none. */
  readonly #onBudgetCharge: ((charge: BudgetCharge) => void) | null;

  /** Groups a policy keeps at most (rate windows; budgets per period); 0: no bound. */
  readonly #maxGroups: number;

  constructor(options: { onBudgetCharge?: (charge: BudgetCharge) => void; maxGroups?: number } = {}) {
    this.#onBudgetCharge = options.onBudgetCharge ?? null;
    this.#maxGroups = options.maxGroups ?? DEFAULT_MAX_GROUPS;
  }

  /**
   * Raises a group's count to `used` when that is more: a budget read back from the store at start,
   * or the store's total for it (what every process sharing the store wrote) plus what this process
   * charged since. Never lowers a count.
   */
  raiseBudget(spend: BudgetSpend): void {
    const budget = this.#budgetFor(spend.policyId, spend.period, spend.group, spend.endsAt);
    if (spend.used > budget.used) budget.used = spend.used;
  }

  async admit(windows: readonly WindowCheck[], budgets: readonly BudgetCheck[], now: number): Promise<Admission> {
    return this.admitNow(windows, budgets, now);
  }

  /** `admit` without the promise: the request path of a one-process gateway awaits nothing. */
  admitNow(windows: readonly WindowCheck[], budgets: readonly BudgetCheck[], now: number): Admission {
    const full = this.#maxGroups === 0 ? null : this.#fullPolicy(windows, budgets, now);
    if (full !== null) {
      // Refused without keeping the new group: what the request would see of its windows is empty.
      return {
        allowed: false,
        windows: windows.map((check) => windowState(new Map(), now, check.windowMs, check.limit, check.cost)),
        budgets: budgets.map((check) => this.#budgetOf(check.policyId, check.period, check.group)?.used ?? 0),
        groupsFull: full,
      };
    }
    let allowed = true;
    const found: Array<Map<number, number>> = [];
    for (const check of windows) {
      const buckets = this.#bucketsOf(check.policyId, check.group, now, check.windowMs);
      found.push(buckets);
      if (!fits(pruneBuckets(buckets, now, check.windowMs), check.cost, check.limit)) allowed = false;
    }
    const used: number[] = [];
    for (const check of budgets) {
      const spent = this.#budgetOf(check.policyId, check.period, check.group)?.used ?? 0;
      used.push(spent);
      if (spent >= check.limit) allowed = false;
    }
    const states = windows.map((check, i) => {
      const buckets = found[i];
      if (!allowed) return windowState(buckets, now, check.windowMs, check.limit, check.cost);
      const current = bucketAt(now, check.windowMs);
      if (check.cost > 0) add(buckets, current, check.cost);
      let used = 0;
      let newest: number | null = null;
      for (const [index, count] of buckets) {
        used += count;
        if (newest === null || index > newest) newest = index;
      }
      return admittedState(used, newest, now, check.windowMs);
    });
    return { allowed, windows: states, budgets: used };
  }

  async charge(windows: readonly WindowCharge[], budgets: readonly BudgetCharge[], now: number): Promise<Array<number | null>> {
    return this.chargeNow(windows, budgets, now);
  }

  chargeNow(windows: readonly WindowCharge[], budgets: readonly BudgetCharge[], now: number): Array<number | null> {
    for (const charge of windows) {
      const buckets = this.#bucketsOf(charge.policyId, charge.group, now, charge.windowMs);
      pruneBuckets(buckets, now, charge.windowMs);
      add(buckets, bucketAt(now, charge.windowMs), charge.amount);
    }
    return budgets.map((charge) => {
      const periods = this.#budgets.get(charge.policyId);
      // Earlier periods of this policy are over: their counts can go.
      if (periods !== undefined) for (const [period, groups] of periods) if (period !== charge.period && isOver(groups, now)) periods.delete(period);
      const budget = this.#budgetFor(charge.policyId, charge.period, charge.group, charge.endsAt);
      const before = budget.used;
      budget.used = before + charge.amount;
      this.#onBudgetCharge?.(charge);
      return crossed(before, budget.used, charge.alertAt) ? budget.used : null;
    });
  }

  async windowUsage(policyId: string, windowMs: number, limit: number, now: number, page: PageRequest, keep: GroupFilter): Promise<Page<GroupCount>> {
    const groups = this.#windows.get(policyId)?.groups;
    if (groups === undefined) return { items: [], total: 0 };
    const live: string[] = [];
    for (const [group, buckets] of groups) {
      if (pruneBuckets(buckets, now, windowMs) === 0) groups.delete(group);
      else if (keep === null || keep(group)) live.push(group);
    }
    const items = sortedPage(live, page).map((group) => {
      const state = windowState(groups.get(group)!, now, windowMs, limit, 1);
      return { group, used: state.used, resetMs: state.resetMs };
    });
    return { items, total: live.length };
  }

  async budgetUsage(policyId: string, period: string, page: PageRequest, keep: GroupFilter): Promise<Page<GroupCount>> {
    const groups = this.#budgets.get(policyId)?.get(period);
    if (groups === undefined) return { items: [], total: 0 };
    const kept = [...groups.keys()].filter((group) => keep === null || keep(group));
    return { items: sortedPage(kept, page).map((group) => ({ group, used: groups.get(group)!.used })), total: kept.length };
  }

  async close(): Promise<void> {
    this.#windows.clear();
    this.#budgets.clear();
  }

  /** Groups with rate windows held now, over every policy (for tests and diagnostics). */
  get windowGroups(): number {
    let count = 0;
    for (const policy of this.#windows.values()) count += policy.groups.size;
    return count;
  }

  #bucketsOf(policyId: string, group: string, now: number, windowMs: number): Map<number, number> {
    let policy = this.#windows.get(policyId);
    if (policy === undefined) this.#windows.set(policyId, (policy = { groups: new Map(), sweepAt: FIRST_SWEEP, sweptBucket: -1 }));
    let buckets = policy.groups.get(group);
    if (buckets === undefined) {
      if (policy.groups.size >= policy.sweepAt) sweep(policy, now, windowMs);
      policy.groups.set(group, (buckets = new Map()));
    }
    return buckets;
  }

  /** The first policy that keeps `#maxGroups` groups already, where the request's group is a new one; null when none. */
  #fullPolicy(windows: readonly WindowCheck[], budgets: readonly BudgetCheck[], now: number): string | null {
    for (const check of windows) {
      const policy = this.#windows.get(check.policyId);
      if (policy === undefined || policy.groups.size < this.#maxGroups || policy.groups.has(check.group)) continue;
      // Full only with what is live: idle groups go first, swept once a bucket at most (a sweep reads
      // every group, and each refused request would otherwise pay for one).
      if (bucketAt(now, check.windowMs) !== policy.sweptBucket) sweep(policy, now, check.windowMs);
      if (policy.groups.size >= this.#maxGroups) return check.policyId;
    }
    for (const check of budgets) {
      const groups = this.#budgets.get(check.policyId)?.get(check.period);
      if (groups !== undefined && groups.size >= this.#maxGroups && !groups.has(check.group)) return check.policyId;
    }
    return null;
  }

  #budgetFor(policyId: string, period: string, group: string, endsAt: number | null): Budget {
    let periods = this.#budgets.get(policyId);
    if (periods === undefined) this.#budgets.set(policyId, (periods = new Map()));
    let groups = periods.get(period);
    if (groups === undefined) periods.set(period, (groups = new Map()));
    let budget = groups.get(group);
    if (budget === undefined) groups.set(group, (budget = { used: 0, endsAt }));
    return budget;
  }

  #budgetOf(policyId: string, period: string, group: string): Budget | undefined {
    return this.#budgets.get(policyId)?.get(period)?.get(group);
  }
}

/**
 * Drops the groups whose window holds nothing at `now`; the next sweep comes when the count has
 * doubled from what is left, so sweeping costs O(1) per new group however many are live.
 */
function sweep(policy: PolicyWindows, now: number, windowMs: number): void {
  for (const [group, buckets] of policy.groups) if (pruneBuckets(buckets, now, windowMs) === 0) policy.groups.delete(group);
  policy.sweepAt = Math.max(FIRST_SWEEP, 2 * policy.groups.size);
  policy.sweptBucket = bucketAt(now, windowMs);
}

/** Whether every budget of a period has ended (read without copying the period's groups: a charge asks this of each other period). */
function isOver(groups: ReadonlyMap<string, Budget>, now: number): boolean {
  for (const budget of groups.values()) if (budget.endsAt === null || budget.endsAt > now) return false;
  return true;
}

function add(buckets: Map<number, number>, index: number, amount: number): void {
  buckets.set(index, (buckets.get(index) ?? 0) + amount);
}

/** Whether going from `before` to `after` crossed the alert threshold: true for one charge only, as counts only grow. */
export function crossed(before: number, after: number, alertAt: number | null): boolean {
  return alertAt !== null && before < alertAt && after >= alertAt;
}
