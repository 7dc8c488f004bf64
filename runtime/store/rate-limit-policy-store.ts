// Rate-limits policies (SPEC §2.8, §3): `value` requests or tokens per minute, hour or day. Status
// goes from active to archived (one way); archived policies are kept, read-only, until deleted.
import type { Page, PageRequest } from './page.ts';
import type { PolicyCondition, PolicyGroupBy, PolicyOwner } from './policy-fields.ts';

export const RATE_LIMIT_TYPES = ['requests', 'tokens'] as const;
export const RATE_LIMIT_UNITS = ['rpm', 'rph', 'rpd'] as const;
export const POLICY_STATUSES = ['active', 'archived'] as const;
export type RateLimitType = (typeof RATE_LIMIT_TYPES)[number];
export type RateLimitUnit = (typeof RATE_LIMIT_UNITS)[number];
export type PolicyStatus = (typeof POLICY_STATUSES)[number];

export interface RateLimitPolicy extends PolicyOwner {
  id: string;
  name: string | null;
  type: RateLimitType;
  unit: RateLimitUnit;
  value: number;
  status: PolicyStatus;
  conditions: PolicyCondition[];
  groupBy: PolicyGroupBy[];
  createdAt: string;
  lastUpdatedAt: string;
}

export type NewRateLimitPolicy = Pick<RateLimitPolicy, 'name' | 'type' | 'unit' | 'value' | 'conditions' | 'groupBy' | 'workspaceId' | 'organisationId'>;
export type RateLimitPolicyPatch = Partial<Pick<RateLimitPolicy, 'name' | 'type' | 'unit' | 'value' | 'conditions' | 'groupBy'>>;

export interface RateLimitPolicyFilter {
  organisationId?: string;
  workspaceId?: string;
  status?: PolicyStatus;
  type?: RateLimitType;
  unit?: RateLimitUnit;
}

export interface RateLimitPolicyStore {
  create(input: NewRateLimitPolicy): Promise<RateLimitPolicy>;
  get(id: string): Promise<RateLimitPolicy | null>;
  /** Oldest first. */
  list(filter: RateLimitPolicyFilter, page: PageRequest): Promise<Page<RateLimitPolicy>>;
  /** Changes an *active* policy; null when no active policy has that ID. */
  update(id: string, patch: RateLimitPolicyPatch): Promise<RateLimitPolicy | null>;
  /** Archives an active policy (an archived one is returned unchanged); null when none has that ID. */
  archive(id: string): Promise<RateLimitPolicy | null>;
  delete(id: string): Promise<boolean>;
}
