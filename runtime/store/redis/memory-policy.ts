// What Redis does once it holds `maxmemory` decides what the gateway can keep in it. Cached answers
// and rate windows carry an expiry; usage budgets never do (redis-counters.ts). So with a
// `volatile-*` policy Redis makes room among the cache's entries and idle windows and never drops a
// budget, which is the setting the docs ask for (docs/limits.md). Two others are said in the log when
// a connection becomes ready: `allkeys-*` may evict a budget (it starts over at zero), and
// `noeviction` refuses every write once full (nothing more is cached, and limits fall back to each
// process's own count).
import type { Redis } from 'ioredis';
import type { GatewayLogger } from '../../core/log.ts';

export interface MemoryPolicyWarning {
  event: 'redis_evicts_budgets' | 'redis_refuses_writes_when_full';
  policy: string;
  maxmemory: number;
  note: string;
}

const ADVICE = 'set maxmemory-policy to volatile-lru (or another volatile-* policy): Redis then makes room among keys that expire (cached answers, idle rate windows) and never evicts a usage budget';

/** The warning INFO memory's text calls for; null for a policy that keeps budgets and makes room, or no `maxmemory`. */
export function memoryPolicyWarning(info: string): MemoryPolicyWarning | null {
  const maxmemory = Number(/^maxmemory:(\d+)\s*$/m.exec(info)?.[1] ?? 0);
  const policy = /^maxmemory_policy:(\S+)\s*$/m.exec(info)?.[1];
  // No limit: Redis grows (cached answers expire with their max_age); nothing is evicted or refused.
  if (policy === undefined || !(maxmemory > 0)) return null;
  if (policy.startsWith('allkeys-')) {
    return { event: 'redis_evicts_budgets', policy, maxmemory, note: `when full, Redis evicts any key, usage budgets included: an evicted budget starts over at zero; ${ADVICE}` };
  }
  if (policy === 'noeviction') {
    return { event: 'redis_refuses_writes_when_full', policy, maxmemory, note: `when full, Redis refuses every write: answers are no longer cached and limits count in each process only; ${ADVICE}` };
  }
  return null;
}

/** Reads the server's memory settings and logs a warning when they call for one; a server that refuses INFO (a proxy) is left alone. */
export async function warnOfMemoryPolicy(redis: Redis, logger: GatewayLogger): Promise<void> {
  const info = await redis.call('INFO', 'memory').catch(() => '');
  if (typeof info !== 'string') return;
  const warning = memoryPolicyWarning(info);
  if (warning === null) return;
  const { event, ...fields } = warning;
  // Each event named where it is logged, so the docs' list of events can be checked against the code.
  if (event === 'redis_evicts_budgets') logger.warn('redis_evicts_budgets', fields);
  else logger.warn('redis_refuses_writes_when_full', fields);
}
