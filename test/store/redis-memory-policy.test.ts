// What Redis does once full, against real redis-servers with a small `maxmemory`: under
// `volatile-lru` the cache's entries make room and a usage budget is never evicted (its keys carry no
// expiry); `allkeys-*` and `noeviction` are said in the log when the connection is made.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { GatewayLogger } from '../../runtime/core/log.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { memoryPolicyWarning } from '../../runtime/store/redis/memory-policy.ts';
import { openRedis } from '../../runtime/store/redis/redis-connection.ts';
import { RedisCounters } from '../../runtime/pipeline/limits/redis-counters.ts';
import { RedisResponseCache } from '../../runtime/pipeline/cache/redis-cache.ts';
import { periodAt } from '../../runtime/pipeline/limits/periods.ts';
import { type PrivateRedis, startPrivateRedis } from '../e2e/serve-processes.ts';
import { until } from '../jobs/harness.ts';

const servers: PrivateRedis[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.kill()));
});

async function redisWith(policy: string, maxmemory = '4mb'): Promise<PrivateRedis> {
  const server = await startPrivateRedis({ args: ['--maxmemory', maxmemory, '--maxmemory-policy', policy] });
  servers.push(server);
  return server;
}

function capturing(): { logger: GatewayLogger; warnings: Array<[string, Record<string, unknown>]> } {
  const warnings: Array<[string, Record<string, unknown>]> = [];
  return { logger: { ...silentLogger, warn: (event, fields = {}) => void warnings.push([event, fields]) }, warnings };
}

describe('the memory policy read from INFO memory', () => {
  const info = (maxmemory: number, policy: string) => `# Memory\r\nused_memory:1000\r\nmaxmemory:${maxmemory}\r\nmaxmemory_human:4M\r\nmaxmemory_policy:${policy}\r\n`;

  it('warns of allkeys-* (budgets evicted) and noeviction (writes refused), not of volatile-* or no maxmemory', () => {
    for (const policy of ['allkeys-lru', 'allkeys-lfu', 'allkeys-random']) expect(memoryPolicyWarning(info(4 << 20, policy))).toMatchObject({ event: 'redis_evicts_budgets', policy, maxmemory: 4 << 20 });
    expect(memoryPolicyWarning(info(4 << 20, 'noeviction'))).toMatchObject({ event: 'redis_refuses_writes_when_full', policy: 'noeviction' });
    for (const policy of ['volatile-lru', 'volatile-lfu', 'volatile-ttl', 'volatile-random']) expect(memoryPolicyWarning(info(4 << 20, policy))).toBeNull();
    for (const policy of ['allkeys-lru', 'noeviction']) expect(memoryPolicyWarning(info(0, policy))).toBeNull();
    expect(memoryPolicyWarning('')).toBeNull();
  });
});

describe('a Redis with a small maxmemory', () => {
  it.each([
    ['allkeys-lru', 'redis_evicts_budgets'],
    ['noeviction', 'redis_refuses_writes_when_full'],
  ])('under %s, the connection logs %s', async (policy, event) => {
    const server = await redisWith(policy);
    const { logger, warnings } = capturing();
    const redis = await openRedis({ url: server.url, commandTimeoutMs: 250 }, logger);
    try {
      await until(async () => warnings, (seen) => seen.some(([name]) => name === event), 2000, `the ${event} warning`);
      expect(warnings.find(([name]) => name === event)![1]).toMatchObject({ policy, maxmemory: 4 << 20 });
      expect(String(warnings.find(([name]) => name === event)![1].note)).toContain('volatile-lru');
    } finally {
      redis.disconnect();
    }
  });

  it('under volatile-lru, answers cached past maxmemory make room among themselves: no warning, no refused write, the month\'s budget kept', async () => {
    const server = await redisWith('volatile-lru', '3mb');
    const { logger, warnings } = capturing();
    const redis = await openRedis({ url: server.url, commandTimeoutMs: 1000 }, logger);
    try {
      const counters = new RedisCounters(redis);
      const cache = new RedisResponseCache(redis);
      const now = Date.now();
      const period = periodAt('monthly', now);
      const policyId = randomUUID();
      await counters.charge([], [{ policyId, group: '["team-a"]', period: period.id, endsAt: period.endsAt, amount: 7, alertAt: null }], now);
      // ~12 MB of answers through a 3 MB Redis: each write must be taken (no OOM refusal).
      const body = Buffer.alloc(20_000, 'x');
      for (let i = 0; i < 600; i++) {
        await cache.set(`answer-${i}`, { status: 200, headers: { 'content-type': 'application/json' }, body, storedAt: now, leafPath: 'config', provider: 'vendor' }, 3_600_000, { organisation: 'org', namespace: null, configId: 'chat' });
      }
      expect(Number(/evicted_keys:(\d+)/.exec(String(await redis.call('INFO', 'stats')))?.[1])).toBeGreaterThan(0);
      expect(await cache.get('answer-599')).not.toBeNull();
      expect((await counters.budgetUsage(policyId, period.id, { limit: 10, offset: 0 }, null)).items).toEqual([{ group: '["team-a"]', used: 7 }]);
      expect((await counters.admit([], [{ policyId, group: '["team-a"]', period: period.id, limit: 10 }], Date.now())).budgets).toEqual([7]);
      expect(warnings.map(([name]) => name)).not.toContain('redis_evicts_budgets');
      expect(warnings.map(([name]) => name)).not.toContain('redis_refuses_writes_when_full');
    } finally {
      redis.disconnect();
    }
  });
});
