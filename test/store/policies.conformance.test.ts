// Rate-limit and usage-limit policy stores, run against SQLite and PostgreSQL; list filtering and
// paging are checked against a plain in-memory reference by a property.
import { randomUUID } from 'node:crypto';
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NewRateLimitPolicy, POLICY_STATUSES, RATE_LIMIT_TYPES, RATE_LIMIT_UNITS, type RateLimitPolicy } from '../../runtime/store/rate-limit-policy-store.ts';
import { CheckViolationError } from '../../runtime/store/sql/sql-database.ts';
import type { NewUsageLimitPolicy } from '../../runtime/store/usage-limit-policy-store.ts';
import { BACKENDS, storeForSuite } from './backends.ts';

function rateLimit(owner: { organisationId: string; workspaceId: string }, extra: Partial<NewRateLimitPolicy> = {}): NewRateLimitPolicy {
  return { name: null, type: 'requests', unit: 'rpm', value: 100, conditions: [{ key: 'api_key', value: 'k1' }], groupBy: [{ key: 'api_key' }], ...owner, ...extra };
}

function usageLimit(owner: { organisationId: string; workspaceId: string }, extra: Partial<NewUsageLimitPolicy> = {}): NewUsageLimitPolicy {
  return {
    name: 'budget', type: 'cost', creditLimit: 100, alertThreshold: 80, periodicReset: 'monthly',
    conditions: [{ key: 'workspace_id', value: owner.workspaceId }], groupBy: [{ key: 'api_key' }], ...owner, ...extra,
  };
}

const newOwner = () => ({ organisationId: randomUUID(), workspaceId: randomUUID() });

describe.each(BACKENDS)('RateLimitPolicyStore on %s', (backend) => {
  const ctx = storeForSuite(backend, { beforeAll, afterAll });

  it('creates active policies with every SPEC §2.8 field, and reads them back', async () => {
    const owner = newOwner();
    const created = await ctx.store.rateLimits.create(rateLimit(owner, { name: 'per key', type: 'tokens', unit: 'rpd', value: 2.5 }));
    expect(created).toMatchObject({ status: 'active', name: 'per key', type: 'tokens', unit: 'rpd', value: 2.5, ...owner });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await ctx.store.rateLimits.get(created.id)).toEqual(created);
    expect(await ctx.store.rateLimits.get(randomUUID())).toBeNull();
  });

  it('updates only active policies; archiving is one way and idempotent; delete removes', async () => {
    const policy = await ctx.store.rateLimits.create(rateLimit(newOwner()));
    const updated = await ctx.store.rateLimits.update(policy.id, { value: 10, name: 'renamed', conditions: [{ key: 'metadata._user', value: 'u1' }] });
    expect(updated).toMatchObject({ value: 10, name: 'renamed', unit: 'rpm', conditions: [{ key: 'metadata._user', value: 'u1' }], createdAt: policy.createdAt });
    expect(updated!.lastUpdatedAt > policy.lastUpdatedAt).toBe(true);
    const archived = await ctx.store.rateLimits.archive(policy.id);
    expect(archived).toMatchObject({ status: 'archived', value: 10 });
    expect(await ctx.store.rateLimits.archive(policy.id)).toEqual(archived);
    expect(await ctx.store.rateLimits.update(policy.id, { value: 1 })).toBeNull();
    expect((await ctx.store.rateLimits.get(policy.id))?.value).toBe(10);
    expect(await ctx.store.rateLimits.archive(randomUUID())).toBeNull();
    expect(await ctx.store.rateLimits.delete(policy.id)).toBe(true);
    expect(await ctx.store.rateLimits.delete(policy.id)).toBe(false);
    expect(await ctx.store.rateLimits.get(policy.id)).toBeNull();
  });

  it('filters by organisation, workspace, status, type and unit, and pages like the reference', async () => {
    const orgs = [randomUUID(), randomUUID()];
    const workspaces = [randomUUID(), randomUUID(), randomUUID()];
    const reference: RateLimitPolicy[] = [];
    for (let i = 0; i < 24; i++) {
      const policy = await ctx.store.rateLimits.create(
        rateLimit(
          { organisationId: orgs[i % 2], workspaceId: workspaces[i % 3] },
          { type: RATE_LIMIT_TYPES[i % 2], unit: RATE_LIMIT_UNITS[(i >> 1) % 3], value: i, name: `p${i}` },
        ),
      );
      reference.push(i % 5 === 0 ? (await ctx.store.rateLimits.archive(policy.id))! : policy);
    }
    const optional = <T>(values: readonly T[]) => fc.option(fc.constantFrom(...values), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          organisationId: fc.constantFrom(...orgs),
          workspaceId: optional(workspaces),
          status: optional(POLICY_STATUSES),
          type: optional(RATE_LIMIT_TYPES),
          unit: optional(RATE_LIMIT_UNITS),
        }),
        fc.option(fc.integer({ min: 0, max: 7 }), { nil: null }),
        fc.integer({ min: 0, max: 6 }),
        async (filter, limit, pageIndex) => {
          const matching = reference.filter(
            (p) =>
              p.organisationId === filter.organisationId &&
              (filter.workspaceId === undefined || p.workspaceId === filter.workspaceId) &&
              (filter.status === undefined || p.status === filter.status) &&
              (filter.type === undefined || p.type === filter.type) &&
              (filter.unit === undefined || p.unit === filter.unit),
          );
          const offset = limit === null ? 0 : limit * pageIndex;
          const page = await ctx.store.rateLimits.list(filter, { limit, offset });
          expect(page.total).toBe(matching.length);
          expect(page.items).toEqual(limit === null ? matching : matching.slice(offset, offset + limit));
        },
      ),
      { numRuns: 40, seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31), verbose: 1 },
    );
  });
});

describe.each(BACKENDS)('UsageLimitPolicyStore on %s', (backend) => {
  const ctx = storeForSuite(backend, { beforeAll, afterAll });

  it('creates, reads, updates, lists and deletes', async () => {
    const owner = newOwner();
    const created = await ctx.store.usageLimits.create(usageLimit(owner));
    expect(created).toMatchObject({ type: 'cost', creditLimit: 100, alertThreshold: 80, periodicReset: 'monthly', ...owner });
    expect(await ctx.store.usageLimits.get(created.id)).toEqual(created);
    const cumulative = await ctx.store.usageLimits.create(usageLimit(owner, { type: 'tokens', alertThreshold: null, periodicReset: null, name: null }));
    expect(cumulative).toMatchObject({ alertThreshold: null, periodicReset: null, name: null });

    const updated = await ctx.store.usageLimits.update(created.id, { creditLimit: 500, alertThreshold: null, periodicReset: 'weekly' });
    expect(updated).toMatchObject({ creditLimit: 500, alertThreshold: null, periodicReset: 'weekly', type: 'cost', name: 'budget' });
    expect(await ctx.store.usageLimits.update(randomUUID(), { name: 'x' })).toBeNull();

    const listed = await ctx.store.usageLimits.list({ organisationId: owner.organisationId }, { limit: null, offset: 0 });
    expect(listed).toEqual({ items: [updated, cumulative], total: 2 });
    expect((await ctx.store.usageLimits.list({ organisationId: owner.organisationId, type: 'tokens' }, { limit: 1, offset: 0 })).items).toEqual([cumulative]);
    expect((await ctx.store.usageLimits.list({ organisationId: owner.organisationId }, { limit: 1, offset: 1 })).items).toEqual([cumulative]);
    expect(await ctx.store.usageLimits.delete(created.id)).toBe(true);
    expect(await ctx.store.usageLimits.get(created.id)).toBeNull();
  });

  it('keeps the alert threshold below the credit limit on create and on update', async () => {
    const owner = newOwner();
    await expect(ctx.store.usageLimits.create(usageLimit(owner, { creditLimit: 50, alertThreshold: 50 }))).rejects.toBeInstanceOf(CheckViolationError);
    const policy = await ctx.store.usageLimits.create(usageLimit(owner, { creditLimit: 100, alertThreshold: 80 }));
    await expect(ctx.store.usageLimits.update(policy.id, { creditLimit: 80 })).rejects.toBeInstanceOf(CheckViolationError);
    await expect(ctx.store.usageLimits.update(policy.id, { alertThreshold: 100 })).rejects.toBeInstanceOf(CheckViolationError);
    expect(await ctx.store.usageLimits.get(policy.id)).toMatchObject({ creditLimit: 100, alertThreshold: 80 });
  });

  it('holds the threshold rule when two updates race on one policy', async () => {
    const policy = await ctx.store.usageLimits.create(usageLimit(newOwner(), { creditLimit: 100, alertThreshold: 10 }));
    const outcomes = await Promise.allSettled([
      ctx.store.usageLimits.update(policy.id, { alertThreshold: 90 }),
      ctx.store.usageLimits.update(policy.id, { creditLimit: 50 }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const final = (await ctx.store.usageLimits.get(policy.id))!;
    expect(final.alertThreshold!).toBeLessThan(final.creditLimit);
  });
});
