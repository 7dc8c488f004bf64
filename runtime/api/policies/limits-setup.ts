// Enforcement of the policies: the counters (Redis when REDIS_URL is set, else this process's
// memory, its usage budgets journaled to the store), the usage alerts, and the Limits service every
// router's limit stages read. Installed into the routers' services before any saved config is built
// (runtime/api/hot-state.ts).
import { describeError, type GatewayLogger } from '../../core/log.ts';
import { BudgetJournal } from '../../pipeline/limits/budget-journal.ts';
import { DEFAULT_MAX_GROUPS, type LimitCounters } from '../../pipeline/limits/counters.ts';
import { FailOpenCounters } from '../../pipeline/limits/fail-open-counters.ts';
import { Limits } from '../../pipeline/limits/limits.ts';
import { MemoryCounters } from '../../pipeline/limits/memory-counters.ts';
import { envInteger } from '../../core/env-integer.ts';
import { RedisCounters } from '../../pipeline/limits/redis-counters.ts';
import { JournaledCounters } from '../../pipeline/limits/journaled-counters.ts';
import type { BudgetSpend } from '../../store/usage-budget-store.ts';
import { ENDED_SWEEP_EVERY_MS } from '../../pipeline/limits/periods.ts';
import { UsageAlerts } from '../../pipeline/limits/usage-alerts.ts';
import type { Services } from '../../pipeline/services.ts';
import type { Redis } from 'ioredis';
import type { GatewaySetup } from '../../server/start.ts';
import { envHttpUrl } from '../../core/env-url.ts';

/** `redis`: the process's one Redis connection (REDIS_URL), or null: counters in this process. */
export async function setupLimits(setup: GatewaySetup, services: Services, redis: Redis | null, env: NodeJS.ProcessEnv = process.env): Promise<Limits> {
  const { logger } = setup;
  const maxGroups = envInteger(env, 'GATEWAY_LIMIT_MAX_GROUPS', DEFAULT_MAX_GROUPS, 0);
  const counters = redis === null ? await journaledCounters(setup, services.now, maxGroups) : await redisCounters(setup, services, redis, maxGroups);
  const alerts = new UsageAlerts(logger, services.metrics, alertWebhookFromEnv(env, logger));
  // After the server drained: the last answers' charges may still raise alerts.
  setup.onClose(() => alerts.close());
  const limits = new Limits({ counters, now: services.now, logger, metrics: services.metrics, alerts });
  services.limits = limits;
  return limits;
}

/**
 * Counters in Redis, falling back to this process's memory while it is away. Budget charges are also
 * journaled to the store, and Redis is seeded from it whenever it does not hold the budgets (at start,
 * and each time its connection is made again: a Redis restarted without persistence comes back
 * empty). Ended periods' budgets are deleted from Redis hourly.
 */
async function redisCounters(setup: GatewaySetup, services: Services, redis: Redis, maxGroups: number): Promise<LimitCounters> {
  const { logger } = setup;
  const counters = new RedisCounters(redis, maxGroups);
  const journal = new BudgetJournal(setup.store.usageBudgets, logger, services.now, setup.dataDir);
  const restored = await journal.restore(null);
  let seeding = false;
  const seedIfLost = async (known: BudgetSpend[] | null): Promise<void> => {
    // Redis away: its next connection tries again.
    if (seeding || redis.status !== 'ready') return;
    seeding = true;
    try {
      if (await counters.holdsBudgets()) return;
      const spends = known ?? (await journal.current());
      await counters.seedBudgets(spends);
      logger.info('usage_budgets_seeded', { groups: spends.length, note: 'Redis did not hold the budgets (new, or it lost its data): raised to what the store holds' });
    } catch (error) {
      logger.error('usage_budgets_seed_failed', { error: describeError(error), note: 'tried again when the connection is made again, and hourly' });
    } finally {
      seeding = false;
    }
  };
  redis.on('ready', () => void seedIfLost(null));
  await seedIfLost(restored);
  const hourly = (): void => {
    void seedIfLost(null);
    // Redis away: the next hour's sweep finds the same periods.
    if (redis.status !== 'ready') return;
    counters.sweepEnded(services.now()).catch((error: unknown) => logger.error('usage_budgets_cleanup_failed', { error: describeError(error) }));
  };
  const timer = setInterval(hourly, ENDED_SWEEP_EVERY_MS);
  timer.unref();
  hourly();
  journal.start();
  setup.onClose(async () => {
    clearInterval(timer);
    await journal.close();
  });
  return new JournaledCounters(new FailOpenCounters(counters, logger, () => services.metrics?.limitCounterFallback(), maxGroups), journal.note);
}

/**
 * Memory counters whose usage budgets are read back from the store and written to it as they are
 * charged, so a restart keeps what each group spent. (Redis keeps its own; the memory counters Redis
 * falls back to during an outage are added to Redis when it answers: fail-open-counters.ts.)
 */
async function journaledCounters(setup: GatewaySetup, now: () => number, maxGroups: number): Promise<LimitCounters> {
  const journal = new BudgetJournal(setup.store.usageBudgets, setup.logger, now, setup.dataDir);
  const counters = new MemoryCounters({ onBudgetCharge: journal.note, maxGroups });
  const restored = await journal.restore(counters);
  if (restored.length > 0) setup.logger.info('usage_budgets_restored', { groups: restored.length });
  journal.start();
  setup.onClose(() => journal.close());
  return counters;
}

function alertWebhookFromEnv(env: NodeJS.ProcessEnv, logger: GatewayLogger): string | null {
  const url = envHttpUrl(env, 'GATEWAY_ALERT_WEBHOOK');
  if (url === null) return null;
  logger.info('usage_alert_webhook', { host: url.host });
  return url.href;
}
