// Usage-limits policies (SPEC §2.9, §4.11): a cost or token budget (`creditLimit`) per group, with an
// optional alert threshold below it, cumulative or reset monthly or weekly.
import type { Page, PageRequest } from './page.ts';
import type { PolicyCondition, PolicyGroupBy, PolicyOwner } from './policy-fields.ts';

export const USAGE_LIMIT_TYPES = ['cost', 'tokens'] as const;
export const PERIODIC_RESETS = ['monthly', 'weekly'] as const;
export type UsageLimitType = (typeof USAGE_LIMIT_TYPES)[number];
export type PeriodicReset = (typeof PERIODIC_RESETS)[number];

export interface UsageLimitPolicy extends PolicyOwner {
  id: string;
  name: string | null;
  type: UsageLimitType;
  creditLimit: number;
  /** Below creditLimit (a CHECK constraint holds it even under concurrent updates). */
  alertThreshold: number | null;
  /** null: the limit is cumulative. */
  periodicReset: PeriodicReset | null;
  conditions: PolicyCondition[];
  groupBy: PolicyGroupBy[];
  createdAt: string;
  lastUpdatedAt: string;
}

export type NewUsageLimitPolicy = Pick<
  UsageLimitPolicy,
  'name' | 'type' | 'creditLimit' | 'alertThreshold' | 'periodicReset' | 'conditions' | 'groupBy' | 'workspaceId' | 'organisationId'
>;
export type UsageLimitPolicyPatch = Partial<Pick<UsageLimitPolicy, 'name' | 'creditLimit' | 'alertThreshold' | 'periodicReset' | 'conditions' | 'groupBy'>>;

export interface UsageLimitPolicyFilter {
  organisationId?: string;
  workspaceId?: string;
  type?: UsageLimitType;
}

export interface UsageLimitPolicyStore {
  /** Throws CheckViolationError when alertThreshold is not below creditLimit. */
  create(input: NewUsageLimitPolicy): Promise<UsageLimitPolicy>;
  get(id: string): Promise<UsageLimitPolicy | null>;
  /** Oldest first. */
  list(filter: UsageLimitPolicyFilter, page: PageRequest): Promise<Page<UsageLimitPolicy>>;
  /** Null when no policy has that ID; throws CheckViolationError when the result would break the threshold rule. */
  update(id: string, patch: UsageLimitPolicyPatch): Promise<UsageLimitPolicy | null>;
  delete(id: string): Promise<boolean>;
}
