// `/v1/policies/usage-limits` (SPEC §2.9, §4.11): create with every rule of §4.11 (the body schema
// holds them; the stored CHECK holds alert_threshold < credit_limit under concurrent updates too),
// plus get, list, update and delete.
import type {
  UsageLimitsPolicy, UsageLimitsPolicyCreate, UsageLimitsPolicyCreated, UsageLimitsPolicyList, UsageLimitsPolicyUpdate, UsageLimitsPolicyUsage,
} from '../../../generated/types.ts';
import type { Limits } from '../../pipeline/limits/limits.ts';
import { periodAt } from '../../pipeline/limits/periods.ts';
import { groupValues } from '../../pipeline/limits/policy-matcher.ts';
import type { GatewayStore } from '../../store/open-store.ts';
import { CheckViolationError } from '../../store/sql/sql-database.ts';
import type { UsageLimitPolicy, UsageLimitType } from '../../store/usage-limit-policy-store.ts';
import type { RequestContext } from '../../server/context.ts';
import { GatewayError } from '../../core/errors.ts';
import type { Handler } from '../../server/server.ts';
import { deletedBody, listBody, notFound, pageOf, pathParam, requireAdmin, sendOk, workspaceIdOf } from '../http.ts';
import { usageQuery } from './usage-query.ts';
import { refuseUnmatchableValues } from './condition-values.ts';
import { ownerOf, ownPolicy } from './owner.ts';

const KIND = 'usage-limits policy';
const PARAM = 'usageLimitsPolicyId';

export function usageLimitHandlers(store: GatewayStore, limits: Limits): Record<string, Handler> {
  async function own(ctx: RequestContext): Promise<UsageLimitPolicy> {
    const caller = requireAdmin(ctx);
    const id = pathParam(ctx, PARAM);
    return ownPolicy(caller, await store.usageLimits.get(id), id, KIND, PARAM);
  }

  return {
    'policies.createUsageLimits': async (ctx) => {
      const caller = requireAdmin(ctx);
      const body = (await ctx.json()) as UsageLimitsPolicyCreate;
      await refuseUnmatchableValues(store, body.conditions, caller.organisationId);
      const policy = await thresholdBelowLimit(() =>
        store.usageLimits.create({
          name: body.name ?? null,
          type: body.type,
          creditLimit: body.credit_limit,
          alertThreshold: body.alert_threshold ?? null,
          periodicReset: body.periodic_reset ?? null,
          conditions: body.conditions,
          groupBy: body.group_by,
          ...ownerOf(caller, body),
        }),
      );
      await store.changes.refresh();
      sendOk(ctx, { id: policy.id, object: 'policy_usage_limits' } satisfies UsageLimitsPolicyCreated);
    },

    'policies.retrieveUsageLimits': async (ctx) => {
      sendOk(ctx, usageLimitWire(await own(ctx), true));
    },

    'policies.listUsageLimits': async (ctx) => {
      const caller = requireAdmin(ctx);
      const query = ctx.query;
      const page = await store.usageLimits.list(
        { organisationId: caller.organisationId, workspaceId: workspaceIdOf(query.workspace_id, 'query'), type: query.type as UsageLimitType | undefined },
        pageOf(query),
      );
      sendOk(ctx, listBody(page.items.map((p) => usageLimitWire(p, false)), page.total) satisfies UsageLimitsPolicyList);
    },

    'policies.updateUsageLimits': async (ctx) => {
      const policy = await own(ctx);
      const body = (await ctx.json()) as UsageLimitsPolicyUpdate;
      await refuseUnmatchableValues(store, body.conditions, policy.organisationId);
      const updated = await thresholdBelowLimit(() =>
        store.usageLimits.update(policy.id, {
          name: body.name,
          creditLimit: body.credit_limit,
          alertThreshold: body.alert_threshold,
          periodicReset: body.periodic_reset,
          conditions: body.conditions,
          groupBy: body.group_by,
        }),
      );
      if (updated === null) throw notFound(KIND, policy.id, PARAM);
      await store.changes.refresh();
      sendOk(ctx, usageLimitWire(updated, true));
    },

    'policies.usageLimitsUsage': async (ctx) => {
      const policy = await own(ctx);
      const period = periodAt(policy.periodicReset, Date.now());
      const { page, keep } = usageQuery(ctx.query, policy.groupBy.map((k) => k.key));
      const groups = await limits.counters.budgetUsage(policy.id, period.id, page, keep);
      sendOk(ctx, {
        object: 'list',
        policy_id: policy.id,
        type: policy.type,
        credit_limit: policy.creditLimit,
        alert_threshold: policy.alertThreshold,
        periodic_reset: policy.periodicReset,
        period: { id: period.id, ends_at: period.endsAt === null ? null : Math.floor(period.endsAt / 1000) },
        total: groups.total,
        data: groups.items.map((g) => ({
          group: groupValues(policy.groupBy.map((k) => k.key), g.group),
          used: g.used,
          remaining: Math.max(0, policy.creditLimit - g.used),
          exhausted: g.used >= policy.creditLimit,
        })),
      } satisfies UsageLimitsPolicyUsage);
    },

    'policies.deleteUsageLimits': async (ctx) => {
      const policy = await own(ctx);
      if (!(await store.usageLimits.delete(policy.id))) throw notFound(KIND, policy.id, PARAM);
      await store.changes.refresh();
      sendOk(ctx, deletedBody(policy.id, 'policy_usage_limits'));
    },
  };
}

/** The store's CHECK is the last word on alert_threshold < credit_limit (it also sees the stored values). */
async function thresholdBelowLimit<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof CheckViolationError)) throw error;
    throw new GatewayError('invalid_request_body', 'Invalid request body: alert_threshold must be less than credit_limit (as stored after this change).', '/alert_threshold');
  }
}

/** `object` on single gets only, as for rate-limits policies. */
export function usageLimitWire(policy: UsageLimitPolicy, single: boolean): UsageLimitsPolicy {
  return {
    id: policy.id,
    ...(single ? { object: 'policy_usage_limits' as const } : {}),
    name: policy.name,
    type: policy.type,
    credit_limit: policy.creditLimit,
    alert_threshold: policy.alertThreshold,
    periodic_reset: policy.periodicReset,
    conditions: policy.conditions,
    group_by: policy.groupBy,
    workspace_id: policy.workspaceId,
    organisation_id: policy.organisationId,
    created_at: policy.createdAt,
    last_updated_at: policy.lastUpdatedAt,
  };
}
