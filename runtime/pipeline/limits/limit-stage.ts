// The limit stages (ARCHITECTURE §4, §5): in the request phase just inside the log, the policies on
// request-level keys (API key, workspace, organisation, metadata, config), judged once per request;
// in the attempt phase, the policies on target-level keys (provider, virtual key, model), judged
// per try of a target, so a refused target is a failed attempt that fallback moves past. A refusal
// is an Outcome (429 rate_limited with Retry-After, or 412 usage_limit_exceeded), logged like any
// answer; an admitted request of a rate-limited route gets the x-ratelimit-* headers. Token and cost
// counts are charged once the answer's usage is known (streams included). With no active policy of
// the level the stage only looks at one field.
import type { PlanLeaf } from '../../core/plan.ts';
import { errorOutcome, type Outcome } from '../../router/outcome.ts';
import type { Exchange } from '../exchange.ts';
import { overrideModel, requestedModel } from '../request-model.ts';
import type { Next, Stage, StageFn } from '../stage.ts';
import type { ResolvedTarget } from '../services.ts';
import type { Limits } from './limits.ts';
import type { LimitSubject, PolicySet } from './policy-matcher.ts';


export const limitStage: Stage = {
  name: 'limits',
  phase: 'request',
  prepare(_node, services) {
    const limits = services.limits;
    if (limits === null) return null;
    const fn: StageFn = (x, next) => {
      const set = limits.policies.request;
      return set.empty ? next(x) : limited(limits, set, subjectOf(x, null, null), x, next, '', '');
    };
    return fn;
  },
};

export const attemptLimitStage: Stage = {
  name: 'attempt-limits',
  phase: 'attempt',
  prepare(node, services) {
    const limits = services.limits;
    if (limits === null || node.kind !== 'leaf') return null;
    const leaf = node;
    // A virtual key's or a slug's provider is known per request, from the stored integration.
    const resolve = services.resolveTarget ?? ((x: Exchange): ResolvedTarget => ({ provider: leaf.provider ?? x.options.provider ?? '', virtualKey: leaf.virtualKey ?? x.options.virtualKey }));
    const fn: StageFn = (x, next) => {
      const set = limits.policies.attempt;
      if (set.empty) return next(x);
      const target = resolve(x, leaf);
      return limited(limits, set, subjectOf(x, leaf, target), x, next, leaf.path, target.provider);
    };
    return fn;
  },
};

async function limited(limits: Limits, set: PolicySet, subject: LimitSubject, x: Exchange, next: Next, leafPath: string, provider: string): Promise<Outcome> {
  const verdict = await limits.judge(set, subject);
  if (verdict === null) return next(x);
  if (!verdict.admitted) return errorOutcome(verdict.error, leafPath, provider, verdict.headers);
  const charge = verdict.charge;
  // The log stage tells the usage once it is known (runtime/pipeline/log/log-stage.ts).
  const chargeUsage = (): void => {
    if (charge !== null) (x.afterUsage ??= []).push((record) => limits.charge(charge, record));
  };
  let outcome: Outcome;
  try {
    outcome = await next(x);
  } catch (error) {
    // The client left: charged what the provider was sent, if it had the request.
    if (x.signal.aborted) chargeUsage();
    throw error;
  }
  // A WebSocket session the provider opened (101) too: charged what its responses reported, once it ended.
  if (outcome.response !== null && ((outcome.status >= 200 && outcome.status < 300) || outcome.status === 101)) chargeUsage();
  const headers = verdict.headers;
  if (headers === null) return outcome;
  // The stage closer to the provider (an attempt's limits) has the more specific numbers: its headers win.
  return { ...outcome, headers: outcome.headers === undefined ? headers : { ...headers, ...outcome.headers } };
}

/** What the policies can read of this request; at the request level (`leaf` null) the target-level keys are unknown. `target`: what the leaf resolved to. */
function subjectOf(x: Exchange, leaf: PlanLeaf | null, target: ResolvedTarget | null): LimitSubject {
  const caller = x.caller;
  return {
    apiKey: caller?.keyId ?? null,
    workspaceId: caller?.workspaceId ?? null,
    organisationId: caller?.organisationId ?? null,
    config: policyConfigId(x.plan.configId),
    metadata: x.options.metadata,
    provider: target === null || target.provider === '' ? null : target.provider,
    virtualKey: target === null ? null : target.virtualKey,
    model: leaf === null ? null : modelSent(x, leaf),
  };
}

/** The id a policy's `config` condition reads: a saved config's; inline and header-built routers have none. */
export function policyConfigId(configId: string): string | null {
  return configId.startsWith('inline:') || configId.startsWith('headers:') ? null : configId;
}

/** The model this target is sent: its override_params model, else the request's. */
function modelSent(x: Exchange, leaf: PlanLeaf): string | null {
  return overrideModel(leaf.overrideParams) ?? requestedModel(x);
}
