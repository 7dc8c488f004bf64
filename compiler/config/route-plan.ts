// The RoutePlan: the checked, normalised, fully-resolved form of one config. Plain JSON (it is
// written to disk by `gateway compile`), produced by plan.ts and consumed by emit.ts.
// Inheritance is already applied: every node carries its *effective* settings.

export interface RoutePlan {
  planVersion: 1;
  /** Saved config ID (file name without .json), or `inline:<hash>` for inline configs. */
  configId: string;
  /** True when some rule reads the parsed request body (override_params, params conditions, hooks, …). */
  readsBody: boolean;
  root: PlanNode;
}

export type PlanNode = PlanLeaf | PlanStrategy;

export interface RetryPlan {
  /** Retries after the first try (0..5). */
  attempts: number;
  onStatusCodes: number[];
  useRetryAfterHeaders: boolean;
}

export interface BreakerPlan {
  failureThreshold: number;
  cooldownMs: number;
  /** null: every status >= 500 counts as a failure. */
  failureStatusCodes: number[] | null;
}

export interface CachePlan {
  mode: 'simple' | 'semantic';
  maxAgeSeconds: number | null;
}

export interface PlanNodeBase {
  /** `config`, `config.targets[1]`, `config.targets[0].targets[2]`: echoed in x-gateway-last-used-option-index. */
  path: string;
  name: string | null;
  /** Loadbalance weight among siblings (default 1). */
  weight: number;
  /** This node's own `on_status_codes`: statuses on which its parent fallback moves past it (null: the strategy's list). */
  onStatusCodes: number[] | null;
  retry: RetryPlan | null;
  requestTimeoutMs: number | null;
  breaker: BreakerPlan | null;
  cache: CachePlan | null;
  customHost: string | null;
  /** Lower-cased header names forwarded untouched. */
  forwardHeaders: string[];
  /** Merged shallowly from the root down; the child wins. */
  overrideParams: Record<string, unknown>;
  beforeRequestHooks: unknown[];
  afterRequestHooks: unknown[];
  inputGuardrails: unknown[];
  outputGuardrails: unknown[];
}

/** A target that calls one provider. */
export interface PlanLeaf extends PlanNodeBase {
  kind: 'leaf';
  provider: string | null;
  apiKey: string | null;
  virtualKey: string | null;
  promptId: string | null;
  strictVendorCompliance: boolean;
  /** Provider-specific fields verbatim (resource_name, deployments, clouda_*, cloudb_*, cloudc_*, vendor_*). */
  providerOptions: Record<string, unknown>;
}

/**
 * A leaf's value for every field it does not set: the emitted router writes only the fields that
 * differ (one per line, for review), and the runtime completes each leaf from these, in this key
 * order (one object shape for every leaf).
 */
export const LEAF_DEFAULTS: Readonly<PlanLeaf> = Object.freeze({
  path: 'config',
  name: null,
  weight: 1,
  onStatusCodes: null,
  retry: null,
  requestTimeoutMs: null,
  breaker: null,
  cache: null,
  customHost: null,
  forwardHeaders: [],
  overrideParams: {},
  beforeRequestHooks: [],
  afterRequestHooks: [],
  inputGuardrails: [],
  outputGuardrails: [],
  kind: 'leaf',
  provider: null,
  apiKey: null,
  virtualKey: null,
  promptId: null,
  strictVendorCompliance: false,
  providerOptions: {},
});

export type StrategyMode = 'single' | 'loadbalance' | 'fallback' | 'conditional';

export interface PlanStrategy extends PlanNodeBase {
  kind: 'strategy';
  mode: StrategyMode;
  targets: PlanNode[];
  /** Fallback mode: statuses that move on to the next target; null means any non-2xx. */
  fallbackOnStatusCodes: number[] | null;
  /** Conditional mode: evaluated in order; `then` is an index into `targets`. */
  conditions: PlanCondition[];
  /** Conditional mode: index into `targets` used when no condition matches. */
  defaultTarget: number | null;
}

export interface PlanCondition {
  query: PlanQuery;
  then: number;
}

export type ComparisonOperator = '$eq' | '$ne' | '$gt' | '$gte' | '$lt' | '$lte' | '$in' | '$nin' | '$regex';

/** A field the query reads: `metadata.<key>`, `params.<path>` or `url.pathname`. */
export interface FieldRef {
  root: 'metadata' | 'params' | 'url';
  path: string[];
}

export type PlanQuery =
  | { op: 'and'; all: PlanQuery[] }
  | { op: 'or'; any: PlanQuery[] }
  | { op: 'compare'; field: FieldRef; operator: ComparisonOperator; value: unknown };
