// What usage-limit groups have spent, kept in the store so budgets survive a restart. The counts
// that requests are checked against live in memory (runtime/pipeline/limits/memory-counters.ts) or
// in Redis; this is their journal: written in batches off the request path, read at start (and
// when a Redis that lost its data is seeded again).

/** One group's spend in one period of one policy. */
export interface BudgetSpend {
  policyId: string;
  /** The period's id (runtime/pipeline/limits/periods.ts): `all`, `m2026-11`, `w2026-11-23`. */
  period: string;
  /** The group's key (JSON of its group_by values). */
  group: string;
  /** Added by `add`; the whole count when read by `load`. */
  used: number;
  /** Unix ms when the period ends; null: a cumulative budget. */
  endsAt: number | null;
}

export interface UsageBudgetStore {
  /**
   * Adds each row's `used` to what the store holds for its (policy, period, group), in one
   * transaction, and returns each one's total after it, in the order given: what every process
   * sharing the store has written for that group. A row whose usage-limits policy no longer exists
   * is not stored (its spend went with the policy) and its total is null.
   */
  add(spends: readonly BudgetSpend[]): Promise<Array<number | null>>;
  /** Every budget whose period has not ended at `now`. */
  load(now: number): Promise<BudgetSpend[]>;
  /** Forgets at most `limit` budgets whose period ended before `before`; returns how many. */
  deleteEnded(before: number, limit: number): Promise<number>;
}
