// Budgets in Redis outlive memory pressure: their keys carry no expiry, so a Redis set to make room
// with `maxmemory-policy volatile-*` (managed Redis's usual setting, and what lets the cache's
// entries go) never evicts one, and the gateway deletes a period's keys itself a day after it ended.
// Against the real Redis every test machine runs; times in 2001, which no other test uses, so the
// sweep here never touches another test's keys.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisCounters } from '../../runtime/pipeline/limits/redis-counters.ts';
import type { BudgetCharge } from '../../runtime/pipeline/limits/counters.ts';
import { ENDED_KEPT_MS } from '../../runtime/pipeline/limits/periods.ts';
import { ALL } from '../../runtime/store/page.ts';
import { TEST_REDIS_URL } from './backends.ts';

const T = Date.UTC(2001, 8, 9);
const ENDS = Date.UTC(2001, 9, 1);

describe('budget keys in Redis', () => {
  let redis: Redis;
  let counters: RedisCounters;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    counters = new RedisCounters(redis);
  });
  afterAll(async () => {
    await redis.quit();
  });

  const charge = (policyId: string, group: string, period: string, endsAt: number | null, amount: number): BudgetCharge => ({ policyId, group, period, endsAt, amount, alertAt: null });

  it('carry no expiry, and a period\'s are deleted once it has been over for a day; a budget without reset stays', async () => {
    const id = randomUUID();
    await counters.charge([], [charge(id, '["a"]', 'm2001-09', ENDS, 2), charge(id, '["b"]', 'm2001-09', ENDS, 3), charge(id, '["a"]', 'all', null, 1)], T);
    for (const key of [`gw:lim:b:${id}:m2001-09:["a"]`, `gw:lim:bg:${id}:m2001-09`, `gw:lim:b:${id}:all:["a"]`, `gw:lim:bg:${id}:all`]) expect(await redis.pttl(key), key).toBe(-1);
    expect(Number(await redis.zscore('gw:lim:ended', `${id}:m2001-09`))).toBe(ENDS + ENDED_KEPT_MS);

    expect(await counters.sweepEnded(ENDS + ENDED_KEPT_MS - 1)).toBe(0);
    expect((await counters.budgetUsage(id, 'm2001-09', ALL, null)).total).toBe(2);

    expect(await counters.sweepEnded(ENDS + ENDED_KEPT_MS)).toBe(2);
    expect(await redis.exists(`gw:lim:b:${id}:m2001-09:["a"]`, `gw:lim:b:${id}:m2001-09:["b"]`, `gw:lim:bg:${id}:m2001-09`)).toBe(0);
    expect(await redis.zscore('gw:lim:ended', `${id}:m2001-09`)).toBeNull();
    expect(await counters.budgetUsage(id, 'all', ALL, null)).toEqual({ items: [{ group: '["a"]', used: 1 }], total: 1 });
  });

  it('a period with more groups than one sweep command takes is deleted whole', async () => {
    const id = randomUUID();
    const groups = Array.from({ length: 1_234 }, (_, i) => `["u${i}"]`);
    await counters.charge([], groups.map((group) => charge(id, group, 'w2001-09-03', ENDS, 1)), T);
    expect((await counters.budgetUsage(id, 'w2001-09-03', ALL, null)).total).toBe(groups.length);
    expect(await counters.sweepEnded(ENDS + ENDED_KEPT_MS)).toBe(groups.length);
    expect(await redis.exists(`gw:lim:bg:${id}:w2001-09-03`, `gw:lim:b:${id}:w2001-09-03:["u0"]`, `gw:lim:b:${id}:w2001-09-03:["u1233"]`)).toBe(0);
  });

  it('are seeded from the store\'s totals: raised where Redis holds less, never lowered, and listed; Redis then says it holds them', async () => {
    const id = randomUUID();
    await counters.charge([], [charge(id, '["kept"]', 'm2001-09', ENDS, 9)], T);
    await counters.seedBudgets([
      { policyId: id, period: 'm2001-09', group: '["kept"]', used: 4, endsAt: ENDS },
      { policyId: id, period: 'm2001-09', group: '["raised"]', used: 6.5, endsAt: ENDS },
      { policyId: id, period: 'all', group: '["raised"]', used: 2, endsAt: null },
    ]);
    expect((await counters.budgetUsage(id, 'm2001-09', ALL, null)).items).toEqual([{ group: '["kept"]', used: 9 }, { group: '["raised"]', used: 6.5 }]);
    expect((await counters.budgetUsage(id, 'all', ALL, null)).items).toEqual([{ group: '["raised"]', used: 2 }]);
    expect(await redis.pttl(`gw:lim:b:${id}:m2001-09:["raised"]`)).toBe(-1);
    expect(Number(await redis.zscore('gw:lim:ended', `${id}:m2001-09`))).toBe(ENDS + ENDED_KEPT_MS);
    expect(await counters.holdsBudgets()).toBe(true);
    await counters.sweepEnded(ENDS + ENDED_KEPT_MS);
  });
});
