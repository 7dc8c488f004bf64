// Rate and usage limits for the request path: the compiled active policies (swapped whole when a
// policy changes) and the counters. `judge` matches a request against one level's policies and asks
// the counters once; the stages (limit-stage.ts) turn the verdict into a refusal or headers, and
// charge what the answer used once it is known.
import { GatewayError } from '../../core/errors.ts';
import type { GatewayLogger } from '../../core/log.ts';
import { isCacheHit, type RequestRecord } from '../../core/request-record.ts';
import type { GatewayMetrics } from '../../telemetry/metrics.ts';
import type { RateLimitPolicy } from '../../store/rate-limit-policy-store.ts';
import type { UsageLimitPolicy } from '../../store/usage-limit-policy-store.ts';
import type { BudgetCharge, BudgetCheck, LimitCounters, WindowCharge, WindowCheck } from './counters.ts';
import { periodAt } from './periods.ts';
import { compilePolicies, groupValues, type CompiledPolicies, type CompiledRateLimit, type CompiledUsageLimit, type LimitSubject, type PolicySet } from './policy-matcher.ts';
import { setRateLimitHeaders, setRetryAfter } from './rate-limit-headers.ts';
import type { UsageAlerts } from './usage-alerts.ts';
import type { WindowState } from './window.ts';

const NONE: CompiledPolicies = compilePolicies([], []);

/** What the counters said of one request: refused (with the error and headers), or admitted with headers and what to charge later. */
export type Verdict =
  | { admitted: false; error: GatewayError; headers: Record<string, string> }
  | { admitted: true; headers: Record<string, string> | null; charge: PendingCharge | null };

/** The matched policies that count what the answer uses (tokens, cost), with their groups. */
export interface PendingCharge {
  windows: Array<{ policy: CompiledRateLimit; group: string }>;
  budgets: Array<{ policy: CompiledUsageLimit; group: string }>;
}

export interface LimitsOptions {
  counters: LimitCounters;
  now(): number;
  logger: GatewayLogger;
  metrics: GatewayMetrics | null;
  alerts: UsageAlerts;
}

/** Distinct (policy, provider, model) unpriced warnings kept, so a client choosing models freely cannot grow the set. */
const MAX_UNPRICED_SAID = 1000;

export class Limits {
  /** Read by the stages on every request; replaced whole, never changed in place. */
  policies: CompiledPolicies = NONE;
  readonly counters: LimitCounters;
  readonly #options: LimitsOptions;

  /** When limit_groups_full was last logged. */
  #groupsFullSaidAt = -Infinity;

  /** (policy, provider, model) already said to charge nothing: said once each, up to a bound. */
  readonly #unpricedSaid = new Set<string>();

  /**
   * A cost budget matched an answer the pricing table has no price for: it charges nothing, which an
   * operator cannot see from the budget's count. Said once per policy and model.
   */
  #unpriced(policyId: string, record: RequestRecord): void {
    const model = record.modelAnswered ?? record.modelRequested;
    const key = `${policyId}\n${record.provider}\n${model}`;
    if (this.#unpricedSaid.has(key) || this.#unpricedSaid.size >= MAX_UNPRICED_SAID) return;
    this.#unpricedSaid.add(key);
    this.#options.logger.warn('usage_limit_unpriced', { policy_id: policyId, provider: record.provider, model, note: 'the pricing table has no price for this model, so its answers cost 0 against this cost budget: add it with GATEWAY_PRICING_FILE' });
  }

  constructor(options: LimitsOptions) {
    this.counters = options.counters;
    this.#options = options;
  }

  /** Compiles the active policies (archived ones are left out, so they do nothing). */
  use(rateLimits: readonly RateLimitPolicy[], usageLimits: readonly UsageLimitPolicy[]): void {
    this.policies = compilePolicies(rateLimits, usageLimits);
  }

  /**
   * Whether a usage-limits policy may count what a request with this subject uses, whichever target
   * serves it (a batch's lines, before any of them is routed).
   */
  budgetMayCount(subject: LimitSubject): boolean {
    const { request, attempt } = this.policies;
    return request.usage.some((p) => p.matches(subject)) || attempt.usage.some((p) => p.mayMatch(subject));
  }

  /** Null: no policy of the set matches the request. */
  async judge(set: PolicySet, subject: LimitSubject): Promise<Verdict | null> {
    const rate: Array<{ policy: CompiledRateLimit; group: string }> = [];
    for (const policy of set.rate) if (policy.matches(subject)) rate.push({ policy, group: policy.groupOf(subject) });
    const usage: Array<{ policy: CompiledUsageLimit; group: string }> = [];
    for (const policy of set.usage) if (policy.matches(subject)) usage.push({ policy, group: policy.groupOf(subject) });
    if (rate.length === 0 && usage.length === 0) return null;

    const now = this.#options.now();
    const windows: WindowCheck[] = rate.map(({ policy, group }) => ({ policyId: policy.id, group, windowMs: policy.windowMs, limit: policy.limit, cost: policy.type === 'requests' ? 1 : 0 }));
    const budgets: BudgetCheck[] = usage.map(({ policy, group }) => ({ policyId: policy.id, group, period: periodAt(policy.periodicReset, now).id, limit: policy.limit }));
    const admission = await this.#options.counters.admit(windows, budgets, now);
    if (admission.groupsFull !== undefined) return this.#groupsFull(admission.groupsFull);

    const headers = rate.length === 0 ? null : rateHeaders(rate, admission.windows);
    if (!admission.allowed) {
      const spent = usage.findIndex(({ policy }, k) => admission.budgets[k] >= policy.limit);
      // A spent budget first: waiting does not help there, so no Retry-After that invites a retry.
      if (spent >= 0) {
        const { policy } = usage[spent];
        this.#options.metrics?.limitRefused('usage_limit_exceeded');
        const error = new GatewayError('usage_limit_exceeded', `The usage-limits policy "${policy.id}" is spent: ${formatAmount(admission.budgets[spent], policy.type)} used of ${formatAmount(policy.limit, policy.type)}${policy.periodicReset === null ? '' : ` this ${policy.periodicReset === 'weekly' ? 'week' : 'month'} (UTC)`}.`);
        return { admitted: false, error, headers: headers ?? {} };
      }
      const refused = headers ?? {};
      let waitMs = 0;
      let forever = false;
      for (const state of admission.windows) {
        if (state.retryAfterMs === null) forever = true;
        else waitMs = Math.max(waitMs, state.retryAfterMs);
      }
      // The policy that refused (its window has no room now); with no room ever, wait a whole window.
      const first = rate.find((_, i) => admission.windows[i].retryAfterMs !== 0)?.policy ?? rate[0].policy;
      const retryMs = forever ? first.windowMs : waitMs;
      setRetryAfter(refused, retryMs);
      this.#options.metrics?.limitRefused('rate_limited');
      const error = new GatewayError('rate_limited', `The rate-limits policy "${first.id}" allows ${first.limit} ${first.type} per ${unitName(first.windowMs)}; retry in ${Math.max(1, Math.ceil(retryMs / 1000))} s.`);
      return { admitted: false, error, headers: refused };
    }
    const tokenWindows = rate.filter(({ policy }) => policy.type === 'tokens');
    const charge = tokenWindows.length === 0 && usage.length === 0 ? null : { windows: tokenWindows, budgets: usage };
    return { admitted: true, headers, charge };
  }

  /**
   * The request is of a new group of a policy whose groups fill what the process keeps: refused, since
   * admitting it uncounted would let every group past the bound go unlimited. Said once a minute.
   */
  #groupsFull(policyId: string): Verdict {
    this.#options.metrics?.limitRefused('limit_groups_full');
    const now = this.#options.now();
    if (now - this.#groupsFullSaidAt >= 60_000) {
      this.#groupsFullSaidAt = now;
      this.#options.logger.warn('limit_groups_full', { policy_id: policyId, note: 'requests of new groups of this policy are refused until some are forgotten (a window once empty, a budget when its period ends), or GATEWAY_LIMIT_MAX_GROUPS is raised' });
    }
    const error = new GatewayError(
      'limit_groups_full',
      `The policy "${policyId}" counts as many groups as this gateway keeps for one policy (GATEWAY_LIMIT_MAX_GROUPS), and this request is of a new one: it is refused until some are forgotten (a rate window once empty, a budget when its period ends).`,
    );
    return { admitted: false, error, headers: {} };
  }

  /** Charges what a finished answer used (never awaited by the request; failures are logged). */
  charge(pending: PendingCharge, record: RequestRecord): void {
    const usage = record.usage;
    // A cached answer used no provider tokens and cost nothing.
    if (usage === null || isCacheHit(record.cacheStatus)) return;
    const now = this.#options.now();
    const windows: WindowCharge[] = pending.windows.map(({ policy, group }) => ({ policyId: policy.id, group, windowMs: policy.windowMs, amount: usage.totalTokens }));
    const budgets: BudgetCharge[] = [];
    const charged: Array<{ policy: CompiledUsageLimit; group: string; period: string }> = [];
    for (const { policy, group } of pending.budgets) {
      if (policy.type === 'cost' && record.costUsd === null) this.#unpriced(policy.id, record);
      const amount = policy.type === 'tokens' ? usage.totalTokens : (record.costUsd ?? 0);
      if (!(amount > 0)) continue;
      const period = periodAt(policy.periodicReset, now);
      budgets.push({ policyId: policy.id, group, period: period.id, endsAt: period.endsAt, amount, alertAt: policy.alertThreshold });
      charged.push({ policy, group, period: period.id });
    }
    if (windows.length === 0 && budgets.length === 0) return;
    this.#options.counters.charge(windows, budgets, now).then(
      (crossed) => {
        crossed.forEach((used, k) => {
          if (used === null) return;
          const { policy, group, period } = charged[k];
          this.#options.alerts.emit({
            policy_id: policy.id,
            type: policy.type,
            group: groupValues(policy.groupBy, group),
            period,
            used,
            alert_threshold: policy.alertThreshold!,
            credit_limit: policy.limit,
            at: new Date(now).toISOString(),
          });
        });
      },
      (error: unknown) => this.#options.logger.warn('limit_charge_failed', { error: (error as Error).message }),
    );
  }
}

/** One set of headers per policy type: the matched policy of that type with the least left. */
function rateHeaders(rate: ReadonlyArray<{ policy: CompiledRateLimit }>, states: readonly WindowState[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const type of ['requests', 'tokens'] as const) {
    let best = -1;
    rate.forEach(({ policy }, i) => {
      if (policy.type !== type) return;
      if (best < 0 || policy.limit - states[i].used < rate[best].policy.limit - states[best].used) best = i;
    });
    if (best >= 0) setRateLimitHeaders(headers, type, rate[best].policy.limit, states[best]);
  }
  return headers;
}

function unitName(windowMs: number): string {
  return windowMs === 60_000 ? 'minute' : windowMs === 3_600_000 ? 'hour' : 'day';
}

function formatAmount(amount: number, type: 'cost' | 'tokens'): string {
  return type === 'cost' ? `$${amount.toFixed(4)}` : `${amount} tokens`;
}
