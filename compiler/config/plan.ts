// check → PLAN → emit. Turns a checked config into a RoutePlan: inheritance applied, defaults filled,
// names resolved to indices, queries parsed. Pure and deterministic; the input must have passed check.
import { type GuardrailLookup, resolvedGuardrail } from './guardrail-lookup.ts';
import { canonicalProvider, PROVIDER_OPTIONS } from './providers.ts';
import type {
  BreakerPlan, CachePlan, PlanCondition, PlanLeaf, PlanNode, PlanNodeBase, PlanQuery, PlanStrategy, RetryPlan, RoutePlan, StrategyMode,
} from './route-plan.ts';
import { parseQuery } from './query.ts';
import { startsProviderGroup } from './provider-group.ts';

/** Statuses retried when a `retry` names none: rate limited, and the transient server errors, the messages-style API's 529 "overloaded" included. */
export const DEFAULT_RETRY_STATUS_CODES: readonly number[] = [429, 500, 502, 503, 504, 529];

type RawConfig = Record<string, unknown>;

/** Keys that together say which provider a target calls and with what (see `inherit`). */
const PROVIDER_KEYS = ['provider', 'api_key', 'virtual_key'];
const PROVIDER_OPTION_KEYS: readonly string[] = PROVIDER_OPTIONS.map((option) => option.key);

/** The settings a node passes down: the inherited fields of a plan node plus the leaf-only ones. */
type InheritedNodeFields = 'retry' | 'requestTimeoutMs' | 'breaker' | 'cache' | 'customHost' | 'forwardHeaders' | 'overrideParams'
  | 'beforeRequestHooks' | 'afterRequestHooks' | 'inputGuardrails' | 'outputGuardrails';
interface Inherited extends Pick<PlanNodeBase, InheritedNodeFields> {
  promptId: string | null;
  strictVendorCompliance: boolean;
  providerGroup: RawConfig;
}

const ROOT: Inherited = {
  retry: null, requestTimeoutMs: null, breaker: null, cache: null, customHost: null, forwardHeaders: [], overrideParams: {},
  beforeRequestHooks: [], afterRequestHooks: [], inputGuardrails: [], outputGuardrails: [], promptId: null,
  strictVendorCompliance: false, providerGroup: {},
};

/** `guardrails`: where guardrails named by string resolve (the checker made sure each does). */
export function planConfig(config: RawConfig, configId: string, guardrails: GuardrailLookup | null = null): RoutePlan {
  const root = planNode(config, 'config', ROOT, guardrails);
  return { planVersion: 1, configId, readsBody: readsBody(root), root };
}

function planNode(raw: RawConfig, path: string, parent: Inherited, guardrails: GuardrailLookup | null): PlanNode {
  const own = inherit(raw, parent, guardrails);
  const base: PlanNodeBase = {
    path,
    name: typeof raw.name === 'string' ? raw.name : null,
    weight: typeof raw.weight === 'number' ? raw.weight : 1,
    onStatusCodes: numbers(raw.on_status_codes),
    retry: own.retry,
    requestTimeoutMs: own.requestTimeoutMs,
    breaker: own.breaker,
    cache: own.cache,
    customHost: own.customHost,
    forwardHeaders: own.forwardHeaders,
    overrideParams: own.overrideParams,
    beforeRequestHooks: own.beforeRequestHooks,
    afterRequestHooks: own.afterRequestHooks,
    inputGuardrails: own.inputGuardrails,
    outputGuardrails: own.outputGuardrails,
  };
  const strategy = raw.strategy as RawConfig | undefined;
  if (strategy) return planStrategy(base, strategy, raw.targets as RawConfig[], own, guardrails);
  const group = own.providerGroup;
  const leaf: PlanLeaf = {
    ...base,
    kind: 'leaf',
    provider: typeof group.provider === 'string' ? canonicalProvider(group.provider) : null,
    apiKey: typeof group.api_key === 'string' ? group.api_key : null,
    virtualKey: typeof group.virtual_key === 'string' ? group.virtual_key : null,
    promptId: own.promptId,
    strictVendorCompliance: own.strictVendorCompliance,
    providerOptions: Object.fromEntries(PROVIDER_OPTION_KEYS.filter((k) => k in group).map((k) => [k, group[k]])),
  };
  return leaf;
}

function planStrategy(base: PlanNodeBase, strategy: RawConfig, targets: RawConfig[], own: Inherited, guardrails: GuardrailLookup | null): PlanStrategy {
  const children = targets.map((target, index) => planNode(target, `${base.path}.targets[${index}]`, own, guardrails));
  const indexOf = (name: unknown) => children.findIndex((child) => child.name === name);
  const mode = strategy.mode as StrategyMode;
  const conditions: PlanCondition[] = mode === 'conditional' && Array.isArray(strategy.conditions)
    ? (strategy.conditions as RawConfig[]).map((c) => ({ query: parseQuery(c.query, '', []), then: indexOf(c.then) }))
    : [];
  return {
    ...base,
    kind: 'strategy',
    mode,
    targets: children,
    fallbackOnStatusCodes: numbers(strategy.on_status_codes),
    conditions,
    defaultTarget: mode === 'conditional' ? indexOf(strategy.default) : null,
  };
}

/** The child's own value, else the parent's (ARCHITECTURE §5); override_params merge shallowly. */
function inherit(raw: RawConfig, parent: Inherited, guardrails: GuardrailLookup | null): Inherited {
  const own = Object.fromEntries([...PROVIDER_KEYS, ...PROVIDER_OPTION_KEYS].filter((k) => k in raw).map((k) => [k, raw[k]]));
  // A child that starts a group keeps only its own: a parent's key never travels to another provider.
  // Otherwise the child refines its parent's group key by key.
  const startsGroup = startsProviderGroup(raw);
  return {
    retry: raw.retry ? retryPlan(raw.retry as RawConfig) : parent.retry,
    requestTimeoutMs: typeof raw.request_timeout === 'number' ? raw.request_timeout : parent.requestTimeoutMs,
    breaker: raw.cb_config ? breakerPlan(raw.cb_config as RawConfig) : parent.breaker,
    cache: raw.cache ? cachePlan(raw.cache as RawConfig) : parent.cache,
    customHost: typeof raw.custom_host === 'string' ? raw.custom_host : parent.customHost,
    forwardHeaders: Array.isArray(raw.forward_headers) ? (raw.forward_headers as string[]).map((h) => h.toLowerCase()) : parent.forwardHeaders,
    overrideParams: raw.override_params ? { ...parent.overrideParams, ...(raw.override_params as RawConfig) } : parent.overrideParams,
    beforeRequestHooks: (raw.before_request_hooks as unknown[] | undefined) ?? parent.beforeRequestHooks,
    afterRequestHooks: (raw.after_request_hooks as unknown[] | undefined) ?? parent.afterRequestHooks,
    inputGuardrails: raw.input_guardrails === undefined ? parent.inputGuardrails : resolved(raw.input_guardrails as unknown[], guardrails),
    outputGuardrails: raw.output_guardrails === undefined ? parent.outputGuardrails : resolved(raw.output_guardrails as unknown[], guardrails),
    promptId: typeof raw.prompt_id === 'string' ? raw.prompt_id : parent.promptId,
    strictVendorCompliance: typeof raw.strict_vendor_compliance === 'boolean' ? raw.strict_vendor_compliance : parent.strictVendorCompliance,
    providerGroup: startsGroup ? own : { ...parent.providerGroup, ...own },
  };
}

/** Guardrails named by string, replaced by what the name resolves to. */
function resolved(list: unknown[], guardrails: GuardrailLookup | null): unknown[] {
  return list.map((item) => {
    if (typeof item !== 'string') return item;
    const found = guardrails?.get(item);
    if (found === undefined) throw new Error(`guardrail ${item} was checked but does not resolve`);
    return resolvedGuardrail(item, found);
  });
}

function retryPlan(retry: RawConfig): RetryPlan {
  return {
    attempts: retry.attempts as number,
    onStatusCodes: numbers(retry.on_status_codes) ?? [...DEFAULT_RETRY_STATUS_CODES],
    useRetryAfterHeaders: retry.use_retry_after_headers === true,
  };
}

function breakerPlan(cb: RawConfig): BreakerPlan {
  return {
    failureThreshold: cb.failure_threshold as number,
    cooldownMs: cb.cooldown_interval as number,
    failureStatusCodes: numbers(cb.failure_status_codes),
  };
}

function cachePlan(cache: RawConfig): CachePlan {
  return { mode: cache.mode as CachePlan['mode'], maxAgeSeconds: typeof cache.max_age === 'number' ? cache.max_age : null };
}

function numbers(value: unknown): number[] | null {
  return Array.isArray(value) ? (value as number[]).slice() : null;
}

/** Whether any rule needs the parsed request body; a route that needs none forwards the bytes untouched. */
function readsBody(node: PlanNode): boolean {
  if (Object.keys(node.overrideParams).length > 0 || node.cache !== null) return true;
  if (node.beforeRequestHooks.length + node.afterRequestHooks.length + node.inputGuardrails.length + node.outputGuardrails.length > 0) return true;
  if (node.kind === 'leaf') return node.promptId !== null;
  return node.conditions.some((c) => queryReadsParams(c.query)) || node.targets.some(readsBody);
}

function queryReadsParams(query: PlanQuery): boolean {
  switch (query.op) {
    case 'and': return query.all.some(queryReadsParams);
    case 'or': return query.any.some(queryReadsParams);
    default: return query.field.root === 'params';
  }
}
