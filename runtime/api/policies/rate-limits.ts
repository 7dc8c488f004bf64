// `/v1/policies/rate-limits` (SPEC §2.8, §4.12, §4.13): create, get (`status`, default active), list
// with filters and paging, update (active policies only), archive and delete.
import type {
  RateLimitsPolicy, RateLimitsPolicyCreate, RateLimitsPolicyCreated, RateLimitsPolicyList, RateLimitsPolicyUpdate, RateLimitsPolicyUsage,
} from '../../../generated/types.ts';
import type { Limits } from '../../pipeline/limits/limits.ts';
import { groupValues, WINDOW_MS } from '../../pipeline/limits/policy-matcher.ts';
import type { GatewayStore } from '../../store/open-store.ts';
import type { PolicyStatus, RateLimitPolicy, RateLimitType, RateLimitUnit } from '../../store/rate-limit-policy-store.ts';
import type { RequestContext } from '../../server/context.ts';
import { GatewayError } from '../../core/errors.ts';
import type { Handler } from '../../server/server.ts';
import { deletedBody, listBody, notFound, pageOf, pathParam, requireAdmin, sendOk, workspaceIdOf } from '../http.ts';
import { usageQuery } from './usage-query.ts';
import { refuseUnmatchableValues } from './condition-values.ts';
import { ownerOf, ownPolicy } from './owner.ts';

const KIND = 'rate-limits policy';
const PARAM = 'rateLimitsPolicyId';

export function rateLimitHandlers(store: GatewayStore, limits: Limits): Record<string, Handler> {
  async function own(ctx: RequestContext): Promise<RateLimitPolicy> {
    const caller = requireAdmin(ctx);
    const id = pathParam(ctx, PARAM);
    return ownPolicy(caller, await store.rateLimits.get(id), id, KIND, PARAM);
  }

  return {
    'policies.createRateLimits': async (ctx) => {
      const caller = requireAdmin(ctx);
      const body = (await ctx.json()) as RateLimitsPolicyCreate;
      await refuseUnmatchableValues(store, body.conditions, caller.organisationId);
      const policy = await store.rateLimits.create({
        name: body.name ?? null,
        type: body.type,
        unit: body.unit,
        value: body.value,
        conditions: body.conditions ?? [],
        groupBy: body.group_by ?? [],
        ...ownerOf(caller, body),
      });
      await store.changes.refresh();
      sendOk(ctx, { id: policy.id, object: 'policy_rate_limits' } satisfies RateLimitsPolicyCreated);
    },

    'policies.retrieveRateLimits': async (ctx) => {
      const policy = await own(ctx);
      const status = (ctx.query.status as PolicyStatus | undefined) ?? 'active';
      if (policy.status !== status) {
        throw new GatewayError('resource_not_found', `No ${status} rate-limits policy has the ID "${policy.id}" (it is ${policy.status}; ask with ?status=${policy.status}).`, PARAM);
      }
      sendOk(ctx, rateLimitWire(policy, true));
    },

    'policies.listRateLimits': async (ctx) => {
      const caller = requireAdmin(ctx);
      const query = ctx.query;
      const page = await store.rateLimits.list(
        {
          organisationId: caller.organisationId,
          workspaceId: workspaceIdOf(query.workspace_id, 'query'),
          status: (query.status as PolicyStatus | undefined) ?? 'active',
          type: query.type as RateLimitType | undefined,
          unit: query.unit as RateLimitUnit | undefined,
        },
        pageOf(query),
      );
      sendOk(ctx, listBody(page.items.map((p) => rateLimitWire(p, false)), page.total) satisfies RateLimitsPolicyList);
    },

    'policies.updateRateLimits': async (ctx) => {
      const policy = await own(ctx);
      if (policy.status === 'archived') throw archived(policy.id);
      const body = (await ctx.json()) as RateLimitsPolicyUpdate;
      await refuseUnmatchableValues(store, body.conditions, policy.organisationId);
      const updated = await store.rateLimits.update(policy.id, { name: body.name, type: body.type, unit: body.unit, value: body.value, conditions: body.conditions, groupBy: body.group_by });
      if (updated === null) {
        // Archived or deleted by someone else since the read above.
        const now = await store.rateLimits.get(policy.id);
        throw now === null ? notFound(KIND, policy.id, PARAM) : archived(policy.id);
      }
      await store.changes.refresh();
      sendOk(ctx, rateLimitWire(updated, true));
    },

    'policies.archiveRateLimits': async (ctx) => {
      const policy = await own(ctx);
      const result = await store.rateLimits.archive(policy.id);
      if (result === null) throw notFound(KIND, policy.id, PARAM);
      await store.changes.refresh();
      sendOk(ctx, rateLimitWire(result, true));
    },

    'policies.rateLimitsUsage': async (ctx) => {
      const policy = await own(ctx);
      const windowMs = WINDOW_MS[policy.unit];
      const { page, keep } = usageQuery(ctx.query, policy.groupBy.map((k) => k.key));
      const groups = await limits.counters.windowUsage(policy.id, windowMs, policy.value, Date.now(), page, keep);
      sendOk(ctx, {
        object: 'list',
        policy_id: policy.id,
        type: policy.type,
        unit: policy.unit,
        value: policy.value,
        total: groups.total,
        data: groups.items.map((g) => ({
          group: groupValues(policy.groupBy.map((k) => k.key), g.group),
          used: g.used,
          remaining: Math.max(0, policy.value - g.used),
          reset_seconds: Math.ceil((g.resetMs ?? 0) / 1000),
        })),
      } satisfies RateLimitsPolicyUsage);
    },

    'policies.deleteRateLimits': async (ctx) => {
      const policy = await own(ctx);
      if (!(await store.rateLimits.delete(policy.id))) throw notFound(KIND, policy.id, PARAM);
      await store.changes.refresh();
      sendOk(ctx, deletedBody(policy.id, 'policy_rate_limits'));
    },
  };
}

function archived(id: string): GatewayError {
  return new GatewayError('policy_archived', `The rate-limits policy "${id}" is archived; archived policies are kept read-only. Create a new one instead.`, PARAM);
}

/** SPEC §2.8; `object` on single gets only. */
export function rateLimitWire(policy: RateLimitPolicy, single: boolean): RateLimitsPolicy {
  return {
    id: policy.id,
    ...(single ? { object: 'policy_rate_limits' as const } : {}),
    type: policy.type,
    unit: policy.unit,
    value: policy.value,
    status: policy.status,
    workspace_id: policy.workspaceId,
    organisation_id: policy.organisationId,
    created_at: policy.createdAt,
    last_updated_at: policy.lastUpdatedAt,
    name: policy.name,
    conditions: policy.conditions,
    group_by: policy.groupBy,
  };
}
