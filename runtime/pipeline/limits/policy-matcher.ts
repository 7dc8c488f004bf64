// Policies compiled for the request path: each condition becomes a predicate on one attribute of
// the request and each group_by a reader, once, when policies load or change; a request runs the
// predicates of the active policies only (none: nothing runs).
//
// Keys (the same for conditions and group_by): api_key (the gateway key's id), workspace_id,
// organisation_id, metadata.<k>, config (a saved config's id), and the target-level keys
// provider, virtual_key and model (the model sent to the provider). A value ending in `*` matches
// by prefix; `*` alone matches any value that is present. A policy that reads a target-level key
// is judged per attempt (the target known), the others once per request.
import { canonicalProvider } from '../../../compiler/config/providers.ts';
import type { RateLimitPolicy } from '../../store/rate-limit-policy-store.ts';
import type { PeriodicReset, UsageLimitPolicy } from '../../store/usage-limit-policy-store.ts';

// The schema's PolicyKey (schema/resources/rate-limits-policy.json) admits exactly these keys.
export const TARGET_KEYS = ['provider', 'virtual_key', 'model'] as const;
const METADATA_PREFIX = 'metadata.';

/** What a policy can read of a request; null where the request has no such value. */
export interface LimitSubject {
  apiKey: string | null;
  workspaceId: string | null;
  organisationId: string | null;
  config: string | null;
  metadata: Readonly<Record<string, string>>;
  provider: string | null;
  virtualKey: string | null;
  model: string | null;
}

type Reader = (s: LimitSubject) => string | null;

function readerOf(key: string): Reader {
  switch (key) {
    case 'api_key': return (s) => s.apiKey;
    case 'workspace_id': return (s) => s.workspaceId;
    case 'organisation_id': return (s) => s.organisationId;
    case 'config': return (s) => s.config;
    case 'provider': return (s) => s.provider;
    case 'virtual_key': return (s) => s.virtualKey;
    case 'model': return (s) => s.model;
  }
  const name = key.slice(METADATA_PREFIX.length);
  return (s) => (Object.hasOwn(s.metadata, name) ? s.metadata[name] : null);
}

function predicateOf(key: string, written: string): (s: LimitSubject) => boolean {
  const read = readerOf(key);
  // Targets carry canonical provider names (lower case; `vendor` for `openai`): a value is matched as one.
  const value = key !== 'provider' ? written : written.endsWith('*') ? written.toLowerCase() : canonicalProvider(written);
  if (value.endsWith('*')) {
    const prefix = value.slice(0, -1);
    return (s) => {
      const actual = read(s);
      return actual !== null && actual.startsWith(prefix);
    };
  }
  return (s) => read(s) === value;
}

interface CompiledBase {
  id: string;
  limit: number;
  matches(s: LimitSubject): boolean;
  /**
   * Whether the policy may match a request with this subject whatever target it reaches: its
   * conditions on request-level keys hold (those on provider, virtual_key and model are not judged).
   */
  mayMatch(s: LimitSubject): boolean;
  /** The group's key: the JSON array of the group_by values ("" for a missing one). */
  groupOf(s: LimitSubject): string;
  groupBy: readonly string[];
}

export interface CompiledRateLimit extends CompiledBase {
  kind: 'rate';
  type: 'requests' | 'tokens';
  windowMs: number;
}

export interface CompiledUsageLimit extends CompiledBase {
  kind: 'usage';
  type: 'cost' | 'tokens';
  alertThreshold: number | null;
  periodicReset: PeriodicReset | null;
}

export type CompiledPolicy = CompiledRateLimit | CompiledUsageLimit;

/** The active policies of one level, compiled; `empty` lets the stage skip everything. */
export interface PolicySet {
  readonly empty: boolean;
  readonly rate: readonly CompiledRateLimit[];
  readonly usage: readonly CompiledUsageLimit[];
}

export interface CompiledPolicies {
  /** Policies on request-level keys only: judged once per request. */
  request: PolicySet;
  /** Policies reading provider, virtual_key or model: judged per attempt. */
  attempt: PolicySet;
}

function isTargetKey(key: string): boolean {
  return (TARGET_KEYS as readonly string[]).includes(key);
}

export const WINDOW_MS = { rpm: 60_000, rph: 3_600_000, rpd: 86_400_000 } as const;

export function compilePolicies(rateLimits: readonly RateLimitPolicy[], usageLimits: readonly UsageLimitPolicy[]): CompiledPolicies {
  const rate = rateLimits.filter((p) => p.status === 'active').map(compileRate);
  const usage = usageLimits.map(compileUsage);
  const targetLevel = (p: CompiledBase & { keys: readonly string[] }): boolean => p.keys.some(isTargetKey);
  const set = (r: typeof rate, u: typeof usage): PolicySet => ({ empty: r.length === 0 && u.length === 0, rate: r, usage: u });
  return {
    request: set(rate.filter((p) => !targetLevel(p)), usage.filter((p) => !targetLevel(p))),
    attempt: set(rate.filter(targetLevel), usage.filter(targetLevel)),
  };
}

function base(p: RateLimitPolicy | UsageLimitPolicy, limit: number): CompiledBase & { keys: readonly string[] } {
  const predicates = p.conditions.map((c) => predicateOf(c.key, c.value));
  const requestPredicates = p.conditions.filter((c) => !isTargetKey(c.key)).map((c) => predicateOf(c.key, c.value));
  const groupBy = p.groupBy.map((g) => g.key);
  const readers = groupBy.map(readerOf);
  return {
    id: p.id,
    limit,
    groupBy,
    keys: [...p.conditions.map((c) => c.key), ...groupBy],
    matches: predicates.length === 0 ? () => true : (s) => predicates.every((test) => test(s)),
    mayMatch: (s) => requestPredicates.every((test) => test(s)),
    groupOf: readers.length === 0 ? () => '[]' : (s) => JSON.stringify(readers.map((read) => read(s) ?? '')),
  };
}

function compileRate(p: RateLimitPolicy): CompiledRateLimit & { keys: readonly string[] } {
  return { ...base(p, p.value), kind: 'rate', type: p.type, windowMs: WINDOW_MS[p.unit] };
}

function compileUsage(p: UsageLimitPolicy): CompiledUsageLimit & { keys: readonly string[] } {
  return { ...base(p, p.creditLimit), kind: 'usage', type: p.type, alertThreshold: p.alertThreshold, periodicReset: p.periodicReset };
}

/** A group key back to its group_by values, for the usage endpoints. */
export function groupValues(groupBy: readonly string[], group: string): Record<string, string> {
  let values: unknown;
  try {
    values = JSON.parse(group);
  } catch {
    values = [];
  }
  const list = Array.isArray(values) ? values : [];
  return Object.fromEntries(groupBy.map((key, i) => [key, typeof list[i] === 'string' ? list[i] : '']));
}
