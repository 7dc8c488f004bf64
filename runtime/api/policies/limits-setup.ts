// Enforcement of the policies: the counters (Redis when REDIS_URL is set, else this process's
// memory, its usage budgets journaled to the store), the usage alerts, and the Limits service every
// router's limit stages read. Installed into the routers' services before any saved config is built
// (runtime/api/hot-state.ts).
import { describeError, type GatewayLogger } from '../../core/log.ts';
import { BudgetJournal } from '../../pipeline/limits/budget-journal.ts';
import type { LimitCounters } from '../../pipeline/limits/counters.ts';
import { FailOpenCounters } from '../../pipeline/limits/fail-open-counters.ts';
import { Limits } from '../../pipeline/limits/limits.ts';
import { MemoryCounters } from '../../pipeline/limits/memory-counters.ts';
import { RedisCounters } from '../../pipeline/limits/redis-counters.ts';
import { ENDED_SWEEP_EVERY_MS } from '../../pipeline/limits/periods.ts';
import { UsageAlerts } from '../../pipeline/limits/usage-alerts.ts';
import type { Services } from '../../pipeline/services.ts';
import type { Redis } from 'ioredis';
import type { GatewaySetup } from '../../server/start.ts';
import { envHttpUrl } from '../../core/env-url.ts';

/** `redis`: the process's one Redis connection (REDIS_URL), or null: counters in this process. */
export async function setupLimits(setup: GatewaySetup, services: Services, redis: Redis | null, env: NodeJS.ProcessEnv = process.env): Promise<Limits> {
  const { logger } = setup;
  const counters = redis === null ? await journaledCounters(setup, services.now) : redisCounters(setup, services, redis);
  const alerts = new UsageAlerts(logger, services.metrics, alertWebhookFromEnv(env, logger));
  // After the server drained: the last answers' charges may still raise alerts.
  setup.onClose(() => alerts.close());
  const limits = new Limits({ counters, now: services.now, logger, metrics: services.metrics, alerts });
  services.limits = limits;
  return limits;
}

/** Counters in Redis, falling back to this process's memory while it is away; ended periods' budgets are deleted hourly. */
function redisCounters(setup: GatewaySetup, services: Services, redis: Redis): LimitCounters {
  const counters = new RedisCounters(redis);
  const sweep = (): void => {
    // Redis away: the next hour's sweep finds the same periods.
    if (redis.status !== 'ready') return;
    counters.sweepEnded(services.now()).catch((error: unknown) => setup.logger.error('usage_budgets_cleanup_failed', { error: describeError(error) }));
  };
  const timer = setInterval(sweep, ENDED_SWEEP_EVERY_MS);
  timer.unref();
  setup.onClose(async () => clearInterval(timer));
  sweep();
  return new FailOpenCounters(counters, setup.logger, () => services.metrics?.limitCounterFallback());
}

/**
 * Memory counters whose usage budgets are read back from the store and written to it as they are
 * charged, so a restart keeps what each group spent. (Redis keeps its own; the memory counters Redis
 * falls back to during an outage are added to Redis when it answers: fail-open-counters.ts.)
 */
async function journaledCounters(setup: GatewaySetup, now: () => number): Promise<LimitCounters> {
  const journal = new BudgetJournal(setup.store.usageBudgets, setup.logger, now, setup.dataDir);
  const counters = new MemoryCounters({ onBudgetCharge: journal.note });
  const restored = await journal.restore(counters);
  if (restored > 0) setup.logger.info('usage_budgets_restored', { groups: restored });
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
