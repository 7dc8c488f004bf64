// Counters that fail open: while the shared backend refuses, checks and charges go to the process's
// own counters (logged once, counted each time); budget charges made meanwhile are added to the shared
// backend once it answers, so a spend outlives the outage, and what it refuses again stays owed; last,
// the same against a real redis-server killed and started again.
import { expect, it } from 'vitest';
import type { GatewayLogger } from '../../runtime/core/log.ts';
import type { BudgetCharge, LimitCounters } from '../../runtime/pipeline/limits/counters.ts';
import { FailOpenCounters } from '../../runtime/pipeline/limits/fail-open-counters.ts';
import { MemoryCounters } from '../../runtime/pipeline/limits/memory-counters.ts';
import { ALL } from '../../runtime/store/page.ts';
import { RedisCounters } from '../../runtime/pipeline/limits/redis-counters.ts';
import { openRedis } from '../../runtime/store/redis/redis-connection.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { randomUUID } from 'node:crypto';
import { startPrivateRedis, until } from '../e2e/serve-processes.ts';

const NOW = Date.UTC(2026, 10, 27, 12);

/** The shared backend (memory here: Redis runs the same conformance suite), refusing everything while `down`. */
function switchable(inner: LimitCounters): LimitCounters & { down: boolean } {
  const fail = () => Promise.reject(new Error('Connection is closed.'));
  return {
    down: false,
    admit(windows, budgets, now) { return this.down ? fail() : inner.admit(windows, budgets, now); },
    charge(windows, budgets, now) { return this.down ? fail() : inner.charge(windows, budgets, now); },
    windowUsage: (...args) => inner.windowUsage(...args),
    budgetUsage: (...args) => inner.budgetUsage(...args),
    close: () => inner.close(),
  };
}

const spend = (group: string, amount: number): BudgetCharge => ({ policyId: 'p', group, period: 'm2026-11', endsAt: null, amount, alertAt: 8 });
const events: string[] = [];
const logger: GatewayLogger = { info: (e) => void events.push(e), warn: (e) => void events.push(e), error: (e) => void events.push(e) };

it('adds the budget charges counted during an outage to the shared backend when it answers again', async () => {
  const shared = new MemoryCounters();
  const backend = switchable(shared);
  let fallbacks = 0;
  const counters = new FailOpenCounters(backend, logger, () => void fallbacks++);
  await counters.charge([], [spend('["a"]', 2)], NOW);
  backend.down = true;
  await counters.charge([], [spend('["a"]', 3)], NOW);
  await counters.charge([], [spend('["a"]', 1), spend('["b"]', 4)], NOW);
  expect({ fallbacks, owed: counters.owed }).toEqual({ fallbacks: 2, owed: 2 });
  const used = async () => (await shared.budgetUsage('p', 'm2026-11', ALL, null)).items;
  expect(await used()).toEqual([{ group: '["a"]', used: 2 }]);

  // Back: the next call that reaches it pays back what was counted here.
  backend.down = false;
  await counters.admit([], [{ policyId: 'p', group: '["a"]', period: 'm2026-11', limit: 100 }], NOW);
  await new Promise((resolve) => setImmediate(resolve));
  expect(counters.owed).toBe(0);
  expect(await used()).toEqual([{ group: '["a"]', used: 6 }, { group: '["b"]', used: 4 }]);
  expect(events).toEqual(['limits_fell_back_to_process', 'limits_shared_again']);
});

it('keeps owing what the shared backend refuses on the way back', async () => {
  const shared = new MemoryCounters();
  const backend = switchable(shared);
  const counters = new FailOpenCounters(backend, logger, () => undefined);
  backend.down = true;
  await counters.charge([], [spend('["a"]', 3)], NOW);
  // It answers one call, then goes again before the pay-back lands.
  backend.down = false;
  const recovering = counters.charge([], [spend('["a"]', 1)], NOW);
  backend.down = true;
  await recovering;
  await new Promise((resolve) => setImmediate(resolve));
  expect(counters.owed).toBe(1);
  backend.down = false;
  await counters.charge([], [spend('["a"]', 1)], NOW);
  await new Promise((resolve) => setImmediate(resolve));
  // 1 + 1 straight to the backend, and the 3 owed.
  expect((await shared.budgetUsage('p', 'm2026-11', ALL, null)).items).toEqual([{ group: '["a"]', used: 5 }]);
  expect(counters.owed).toBe(0);
});

it('against a real Redis killed and started again empty: the spend counted meanwhile lands in it', { timeout: 30_000 }, async () => {
  const redis = await startPrivateRedis();
  const settings = { url: redis.url, commandTimeoutMs: 100 };
  const connection = await openRedis(settings, silentLogger);
  const counters = new FailOpenCounters(new RedisCounters(connection), silentLogger, () => undefined);
  const policyId = `fail-open-${randomUUID()}`;
  const charge = (amount: number): BudgetCharge => ({ policyId, group: '[]', period: 'all', endsAt: null, amount, alertAt: null });
  try {
    await counters.charge([], [charge(2)], NOW);
    await redis.kill();
    await counters.charge([], [charge(3)], NOW);
    expect(counters.owed).toBe(1);
    await redis.restart();
    // Once the client has reconnected, the next call pays back what was counted here.
    await until(async () => {
      await counters.admit([], [], NOW).catch(() => undefined);
      return counters.owed;
    }, (owed) => owed === 0, 10_000);
    await until(async () => (await counters.budgetUsage(policyId, 'all', ALL, null)).items, (items) => items[0]?.used === 3, 5_000);
  } finally {
    connection.disconnect();
    await redis.kill();
  }
});
