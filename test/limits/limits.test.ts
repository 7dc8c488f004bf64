// The Limits service with a fake clock: conditions and group_by (wildcards, metadata, missing
// values), the request/target split, weekly and monthly resets at the UTC boundaries, the alert
// once per period, and the period arithmetic as a property.
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { silentLogger } from '../../runtime/core/log.ts';
import { newRequestRecord } from '../../runtime/core/request-record.ts';
import { Limits } from '../../runtime/pipeline/limits/limits.ts';
import { MemoryCounters } from '../../runtime/pipeline/limits/memory-counters.ts';
import { periodAt } from '../../runtime/pipeline/limits/periods.ts';
import type { LimitSubject } from '../../runtime/pipeline/limits/policy-matcher.ts';
import type { UsageAlert } from '../../runtime/pipeline/limits/usage-alerts.ts';
import type { RateLimitPolicy } from '../../runtime/store/rate-limit-policy-store.ts';
import type { UsageLimitPolicy } from '../../runtime/store/usage-limit-policy-store.ts';

const OWNER = { workspaceId: 'w', organisationId: 'o', createdAt: '', lastUpdatedAt: '', name: null };

function rate(id: string, fields: Partial<RateLimitPolicy>): RateLimitPolicy {
  return { id, type: 'requests', unit: 'rpm', value: 1, status: 'active', conditions: [], groupBy: [], ...OWNER, ...fields };
}

function usage(id: string, fields: Partial<UsageLimitPolicy>): UsageLimitPolicy {
  return { id, type: 'tokens', creditLimit: 100, alertThreshold: null, periodicReset: null, conditions: [], groupBy: [], ...OWNER, ...fields };
}

function subject(fields: Partial<LimitSubject> = {}): LimitSubject {
  return { apiKey: 'key-1', workspaceId: 'w', organisationId: 'o', config: 'chat', metadata: {}, provider: null, virtualKey: null, model: null, ...fields };
}

function harness(start: number) {
  const clock = { now: start };
  const alerts: UsageAlert[] = [];
  const limits = new Limits({ counters: new MemoryCounters(), now: () => clock.now, logger: silentLogger, metrics: null, alerts: { emit: (a: UsageAlert) => alerts.push(a) } as never });
  /** Runs a request through judge and, when admitted, charges `tokens`. */
  async function request(s: LimitSubject, tokens = 0, level: 'request' | 'attempt' = 'request'): Promise<number> {
    const verdict = await limits.judge(limits.policies[level], s);
    if (verdict === null) return 200;
    if (!verdict.admitted) return verdict.error.status;
    if (verdict.charge !== null) {
      const record = newRequestRecord('trace', 'POST', '/v1/chat/completions');
      record.usage = { inputTokens: tokens, outputTokens: 0, cachedInputTokens: 0, totalTokens: tokens, estimated: false };
      limits.charge(verdict.charge, record);
      await new Promise((resolve) => setImmediate(resolve));
    }
    return 200;
  }
  return { clock, limits, alerts, request };
}

describe('matching', () => {
  it('applies a policy when every condition matches; `*` matches by prefix, or any present value alone', async () => {
    const h = harness(Date.UTC(2026, 10, 24));
    h.limits.use([rate('p', { conditions: [{ key: 'metadata.team', value: 'eng-*' }, { key: 'api_key', value: '*' }] })], []);
    expect(await h.request(subject({ metadata: { team: 'sales' } }))).toBe(200);
    expect(await h.request(subject({ metadata: { team: 'sales' } }))).toBe(200);
    expect(await h.request(subject({ metadata: {} }))).toBe(200);
    expect(await h.request(subject({ metadata: { team: 'eng-a' } }))).toBe(200);
    expect(await h.request(subject({ metadata: { team: 'eng-b' } }))).toBe(429);
    expect(await h.request(subject({ metadata: { team: 'eng-b' }, apiKey: null }))).toBe(200);
  });

  it('group_by keeps one counter per combination; a missing value is its own group', async () => {
    const h = harness(Date.UTC(2026, 10, 24));
    h.limits.use([rate('p', { groupBy: [{ key: 'api_key' }, { key: 'metadata._user' }] })], []);
    expect(await h.request(subject({ metadata: { _user: 'a' } }))).toBe(200);
    expect(await h.request(subject({ metadata: { _user: 'a' } }))).toBe(429);
    expect(await h.request(subject({ metadata: { _user: 'b' } }))).toBe(200);
    expect(await h.request(subject({ apiKey: 'key-2', metadata: { _user: 'a' } }))).toBe(200);
    expect(await h.request(subject())).toBe(200);
    expect(await h.request(subject())).toBe(429);
  });

  it('matches provider values as canonical names: an alias or another case is its provider, a prefix is lower-cased', async () => {
    const h = harness(Date.UTC(2026, 10, 24));
    h.limits.use([rate('alias', { value: 0, conditions: [{ key: 'provider', value: 'OpenAI' }] }), rate('prefix', { value: 0, conditions: [{ key: 'provider', value: 'Anth*' }] })], []);
    // Targets carry canonical names (compiler/config/plan.ts, the x-gateway-provider header, virtual keys).
    expect(await h.request(subject({ provider: 'vendor' }), 0, 'attempt')).toBe(429);
    expect(await h.request(subject({ provider: 'anthropic' }), 0, 'attempt')).toBe(429);
    expect(await h.request(subject({ provider: 'groq' }), 0, 'attempt')).toBe(200);
  });

  it('puts policies on provider, virtual_key or model in the attempt level, the rest in the request level; archived ones nowhere', () => {
    const h = harness(0);
    h.limits.use(
      [rate('a', {}), rate('b', { conditions: [{ key: 'provider', value: 'openai' }] }), rate('c', { groupBy: [{ key: 'model' }] }), rate('d', { status: 'archived' })],
      [usage('e', { conditions: [{ key: 'virtual_key', value: 'vk' }] }), usage('f', { groupBy: [{ key: 'config' }] })],
    );
    const ids = (level: 'request' | 'attempt') => [...h.limits.policies[level].rate, ...h.limits.policies[level].usage].map((p) => p.id).sort();
    expect(ids('request')).toEqual(['a', 'f']);
    expect(ids('attempt')).toEqual(['b', 'c', 'e']);
    h.limits.use([], []);
    expect(h.limits.policies.request.empty && h.limits.policies.attempt.empty).toBe(true);
  });

  it('says a budget may count a request (a batch, before its lines are routed) by its request-level conditions alone; rate limits never', () => {
    const h = harness(0);
    h.limits.use([rate('r', {})], []);
    expect(h.limits.budgetMayCount(subject())).toBe(false);
    h.limits.use([], [usage('team', { conditions: [{ key: 'metadata.team', value: 'eng-*' }] })]);
    expect(h.limits.budgetMayCount(subject({ metadata: { team: 'eng-ml' } }))).toBe(true);
    expect(h.limits.budgetMayCount(subject({ metadata: { team: 'ops' } }))).toBe(false);
    expect(h.limits.budgetMayCount(subject())).toBe(false);
    // Target-level conditions are not known before a line is routed: such a policy may count it.
    h.limits.use([], [usage('gpt', { conditions: [{ key: 'api_key', value: 'key-1' }, { key: 'model', value: 'gpt-4o' }] })]);
    expect(h.limits.budgetMayCount(subject())).toBe(true);
    expect(h.limits.budgetMayCount(subject({ apiKey: 'key-2' }))).toBe(false);
    h.limits.use([], [usage('by-provider', { groupBy: [{ key: 'provider' }] })]);
    expect(h.limits.budgetMayCount(subject())).toBe(true);
  });
});

describe('usage limits over time (fake clock)', () => {
  it('a weekly budget starts again on Monday 00:00 UTC, not before', async () => {
    // Sunday 2026-11-29 23:59:59 UTC, then Monday 2026-11-30 00:00:00.
    const sunday = Date.UTC(2026, 10, 29, 23, 59, 59);
    const h = harness(sunday);
    h.limits.use([], [usage('weekly', { creditLimit: 10, periodicReset: 'weekly' })]);
    expect(await h.request(subject(), 10)).toBe(200);
    expect(await h.request(subject())).toBe(412);
    h.clock.now = sunday + 999;
    expect(await h.request(subject())).toBe(412);
    h.clock.now = sunday + 1000;
    expect(await h.request(subject(), 4)).toBe(200);
    expect(await h.request(subject(), 6)).toBe(200);
    expect(await h.request(subject())).toBe(412);
  });

  it('a monthly budget starts again on the 1st 00:00 UTC; a cumulative one never', async () => {
    const end = Date.UTC(2026, 10, 30, 23, 59, 59, 999);
    const h = harness(end);
    h.limits.use([], [usage('monthly', { creditLimit: 5, periodicReset: 'monthly', conditions: [{ key: 'metadata.kind', value: 'm' }] }), usage('forever', { creditLimit: 5, conditions: [{ key: 'metadata.kind', value: 'c' }] })]);
    const monthly = subject({ metadata: { kind: 'm' } });
    const forever = subject({ metadata: { kind: 'c' } });
    expect(await h.request(monthly, 5)).toBe(200);
    expect(await h.request(forever, 5)).toBe(200);
    expect(await h.request(monthly)).toBe(412);
    h.clock.now = end + 1;
    expect(await h.request(monthly)).toBe(200);
    h.clock.now = end + 400 * 86_400_000;
    expect(await h.request(forever)).toBe(412);
  });

  it('crossing alert_threshold alerts once per period', async () => {
    const start = Date.UTC(2026, 10, 2, 12);
    const h = harness(start);
    h.limits.use([], [usage('alerting', { creditLimit: 100, alertThreshold: 50, periodicReset: 'weekly' })]);
    for (let i = 0; i < 8; i++) await h.request(subject(), 10);
    expect(h.alerts).toHaveLength(1);
    expect(h.alerts[0]).toMatchObject({ policy_id: 'alerting', used: 50, alert_threshold: 50, credit_limit: 100, period: 'w2026-11-02' });
    h.clock.now = start + 7 * 86_400_000;
    for (let i = 0; i < 8; i++) await h.request(subject(), 10);
    expect(h.alerts.map((a) => a.period)).toEqual(['w2026-11-02', 'w2026-11-09']);
  });
});

describe('unpriced answers', () => {
  it('a cost budget that matches an answer without a price says so once per policy and model, and charges nothing', async () => {
    const warned: Array<Record<string, unknown>> = [];
    const logger = { ...silentLogger, warn: (event: string, fields?: Record<string, unknown>) => void (event === 'usage_limit_unpriced' && warned.push(fields!)) };
    const limits = new Limits({ counters: new MemoryCounters(), now: () => Date.UTC(2026, 10, 2), logger, metrics: null, alerts: { emit: () => undefined } as never });
    limits.use([], [usage('spend', { type: 'cost', creditLimit: 1 })]);
    const answer = async (model: string, costUsd: number | null) => {
      const verdict = await limits.judge(limits.policies.request, subject());
      if (verdict === null || !verdict.admitted || verdict.charge === null) throw new Error(`not admitted with a charge: ${JSON.stringify(verdict)}`);
      const record = { ...newRequestRecord('trace', 'POST', '/v1/chat/completions'), provider: 'vendor', modelAnswered: model, costUsd };
      record.usage = { inputTokens: 5, outputTokens: 5, cachedInputTokens: 0, totalTokens: 10, estimated: false };
      limits.charge(verdict.charge, record);
      await new Promise((resolve) => setImmediate(resolve));
    };
    await answer('house-model', null);
    await answer('house-model', null);
    await answer('other-house-model', null);
    await answer('gpt-4o-mini', 0.5);
    expect(warned).toEqual([
      expect.objectContaining({ policy_id: 'spend', provider: 'vendor', model: 'house-model' }),
      expect.objectContaining({ policy_id: 'spend', provider: 'vendor', model: 'other-house-model' }),
    ]);
    expect((await limits.judge(limits.policies.request, subject()))).toMatchObject({ admitted: true });
  });
});

describe('periods', () => {
  const time = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) });
  test.prop([time, fc.constantFrom('weekly' as const, 'monthly' as const)])('a period holds its instant, ends where the next begins, and weeks begin on Monday', (t, reset) => {
    const period = periodAt(reset, t);
    expect(period.endsAt!).toBeGreaterThan(t);
    expect(periodAt(reset, period.endsAt! - 1).id).toBe(period.id);
    expect(periodAt(reset, period.endsAt!).id).not.toBe(period.id);
    const start = new Date(period.endsAt!);
    expect(start.getUTCHours() + start.getUTCMinutes() + start.getUTCSeconds() + start.getUTCMilliseconds()).toBe(0);
    if (reset === 'weekly') expect(start.getUTCDay()).toBe(1);
    else expect(start.getUTCDate()).toBe(1);
  });

  it('a cumulative count has one period that never ends', () => {
    expect(periodAt(null, 0)).toEqual({ id: 'all', endsAt: null });
  });
});
