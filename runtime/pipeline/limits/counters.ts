// Where limit counts live: one process's memory, or Redis so several gateway processes count
// together. One interface, one conformance suite (test/limits/counters.conformance.test.ts) over
// both. Every request that matches policies costs one `admit` (one Redis round trip for all of
// them) and, when it used tokens or money that some policy counts, one `charge` once the answer is in.
import type { Page, PageRequest } from '../../store/page.ts';
import type { WindowState } from './window.ts';

/**
 * Groups a policy keeps at most by default (GATEWAY_LIMIT_MAX_GROUPS): its live rate windows, and its
 * budgets in each period. In memory, with a 20-character group key, ~350 bytes a rate window and
 * ~210 a budget: ~200–350 MB at most per policy.
 */
export const DEFAULT_MAX_GROUPS = 1_000_000;

/** A rate-limit counter asked to admit a request. */
export interface WindowCheck {
  policyId: string;
  /** The group's key (JSON of its group_by values; `[]` without group_by). */
  group: string;
  windowMs: number;
  limit: number;
  /** Added when admitted: 1 for a requests policy; 0 for a tokens policy (checked now, charged after). */
  cost: number;
}

/** A usage-limit budget asked whether anything is left. */
export interface BudgetCheck {
  policyId: string;
  group: string;
  /** The counting period's id (periods.ts). */
  period: string;
  limit: number;
}

export interface Admission {
  /** True when every window fits and no budget is spent; then every window's cost was added. */
  allowed: boolean;
  /** Per window check, in order. */
  windows: WindowState[];
  /** Per budget check, in order: what the group used in the period so far. */
  budgets: number[];
  /**
   * Set when refused because a policy already keeps as many groups as the counters hold
   * (GATEWAY_LIMIT_MAX_GROUPS) and the request is of a new one: that policy's id.
   */
  groupsFull?: string;
}

export interface WindowCharge {
  policyId: string;
  group: string;
  windowMs: number;
  amount: number;
}

export interface BudgetCharge {
  policyId: string;
  group: string;
  period: string;
  /** Unix ms when the period ends (the counter may be dropped after); null: kept. */
  endsAt: number | null;
  amount: number;
  /** The alert threshold; null: none. */
  alertAt: number | null;
}

/** One group's count, for the usage endpoints. */
export interface GroupCount {
  group: string;
  used: number;
  /** Rate limits: ms until the window is empty again. */
  resetMs?: number;
}

/** Which groups a usage listing keeps (by the group's key string); null keeps every group. */
export type GroupFilter = ((group: string) => boolean) | null;

export interface LimitCounters {
  /** Atomic over all checks: either every window counts the request, or none does. */
  admit(windows: readonly WindowCheck[], budgets: readonly BudgetCheck[], now: number): Promise<Admission>;
  /**
   * Adds what an answer used. Per budget: the count after this charge when the charge crossed the
   * alert threshold (for exactly one charge per period, as counts only grow), else null.
   */
  charge(windows: readonly WindowCharge[], budgets: readonly BudgetCharge[], now: number): Promise<Array<number | null>>;
  /**
   * One page of the live counts of a rate-limits policy, per group seen (groups with nothing left in
   * the window are left out) that `keep` keeps, in the order of the group strings; `total` counts
   * every such group.
   */
  windowUsage(policyId: string, windowMs: number, limit: number, now: number, page: PageRequest, keep: GroupFilter): Promise<Page<GroupCount>>;
  /** One page of the counts of a usage-limits policy in a period, per group `keep` keeps, in the order of the group strings. */
  budgetUsage(policyId: string, period: string, page: PageRequest, keep: GroupFilter): Promise<Page<GroupCount>>;
  close(): Promise<void>;
}
