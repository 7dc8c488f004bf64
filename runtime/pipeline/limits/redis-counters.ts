// Limit counters in Redis, shared by every gateway process on it: N processes enforce one limit,
// not N. Each call is one script run (one round trip, atomic), whatever the number of policies.
//
// Keys (all under `gw:lim:`):
//   w:<policy>:<group>           hash  bucket index → count (window.ts), expires one window after its last write
//   b:<policy>:<period>:<group>  float what the group used in the period, expires a day after the period
//   wg:<policy>, bg:<policy>:<period>  set of the groups seen, for the usage endpoints
import type { Redis } from 'ioredis';
import type { Admission, BudgetCharge, BudgetCheck, GroupCount, LimitCounters, WindowCharge, WindowCheck } from './counters.ts';
import { bucketMsOf, WINDOW_BUCKETS, windowState } from './window.ts';

const PREFIX = 'gw:lim:';
const DAY_MS = 86_400_000;

// KEYS: window keys…, budget keys…, window group sets…; ARGV: now, #windows, #budgets, span,
// then per window: limit, bucket ms, cost, group; then per budget: limit.
// Returns {allowed, per window: flat {index, count, …} of the live buckets, per budget: used}.
const ADMIT = `
local now = tonumber(ARGV[1]); local nw = tonumber(ARGV[2]); local nb = tonumber(ARGV[3]); local span = tonumber(ARGV[4])
local allowed = 1
local live = {}
for i = 1, nw do
  local base = 4 + (i - 1) * 4
  local limit = tonumber(ARGV[base + 1]); local bms = tonumber(ARGV[base + 2]); local cost = tonumber(ARGV[base + 3])
  local oldest = math.floor(now / bms) - span
  local flat = redis.call('HGETALL', KEYS[i])
  local used = 0; local kept = {}
  for j = 1, #flat, 2 do
    local index = tonumber(flat[j]); local n = tonumber(flat[j + 1])
    if index < oldest then redis.call('HDEL', KEYS[i], flat[j]) else used = used + n; kept[#kept + 1] = flat[j]; kept[#kept + 1] = flat[j + 1] end
  end
  if used >= limit or used + cost > limit then allowed = 0 end
  live[i] = kept
end
local spent = {}
local bbase = 4 + nw * 4
for k = 1, nb do
  local used = tonumber(redis.call('GET', KEYS[nw + k]) or '0')
  if used >= tonumber(ARGV[bbase + k]) then allowed = 0 end
  spent[k] = tostring(used)
end
if allowed == 1 then
  for i = 1, nw do
    local base = 4 + (i - 1) * 4
    local bms = tonumber(ARGV[base + 2]); local cost = tonumber(ARGV[base + 3])
    if cost > 0 then
      local index = tostring(math.floor(now / bms))
      redis.call('HINCRBY', KEYS[i], index, cost)
      redis.call('PEXPIRE', KEYS[i], math.ceil(bms * (span + 1)))
      redis.call('SADD', KEYS[nw + nb + i], ARGV[base + 4])
      redis.call('PEXPIRE', KEYS[nw + nb + i], math.ceil(bms * (span + 1)))
      live[i][#live[i] + 1] = index; live[i][#live[i] + 1] = tostring(cost)
    end
  end
end
return {allowed, live, spent}
`;

// KEYS: window keys…, budget keys…, window group sets…, budget group sets…; ARGV: now, #windows,
// #budgets, span, then per window: bucket ms, amount, group; per budget: amount, alert (or ''), ttl ms (or ''), group.
// Returns per budget the count after the charge when it crossed its alert threshold, else ''.
const CHARGE = `
local now = tonumber(ARGV[1]); local nw = tonumber(ARGV[2]); local nb = tonumber(ARGV[3]); local span = tonumber(ARGV[4])
for i = 1, nw do
  local base = 4 + (i - 1) * 3
  local bms = tonumber(ARGV[base + 1])
  redis.call('HINCRBY', KEYS[i], tostring(math.floor(now / bms)), ARGV[base + 2])
  redis.call('PEXPIRE', KEYS[i], math.ceil(bms * (span + 1)))
  redis.call('SADD', KEYS[nw + nb + i], ARGV[base + 3])
  redis.call('PEXPIRE', KEYS[nw + nb + i], math.ceil(bms * (span + 1)))
end
local crossed = {}
local bbase = 4 + nw * 3
for k = 1, nb do
  local base = bbase + (k - 1) * 4
  local amount = tonumber(ARGV[base + 1])
  local after = tonumber(redis.call('INCRBYFLOAT', KEYS[nw + k], ARGV[base + 1]))
  local before = after - amount
  local alert = ARGV[base + 2]
  crossed[k] = ''
  if alert ~= '' and before < tonumber(alert) and after >= tonumber(alert) then crossed[k] = tostring(after) end
  local gset = KEYS[nw + nb + nw + k]
  redis.call('SADD', gset, ARGV[base + 4])
  if ARGV[base + 3] ~= '' then
    redis.call('PEXPIRE', KEYS[nw + k], ARGV[base + 3])
    redis.call('PEXPIRE', gset, ARGV[base + 3])
  end
end
return crossed
`;

type Reply = [number, string[][], string[]];

interface ScriptedRedis extends Redis {
  gwLimitAdmit(numKeys: number, ...args: Array<string | number>): Promise<Reply>;
  gwLimitCharge(numKeys: number, ...args: Array<string | number>): Promise<string[]>;
}

export class RedisCounters implements LimitCounters {
  readonly #redis: ScriptedRedis;

  constructor(redis: Redis) {
    redis.defineCommand('gwLimitAdmit', { lua: ADMIT });
    redis.defineCommand('gwLimitCharge', { lua: CHARGE });
    this.#redis = redis as ScriptedRedis;
  }

  async admit(windows: readonly WindowCheck[], budgets: readonly BudgetCheck[], now: number): Promise<Admission> {
    const keys = [
      ...windows.map((w) => windowKey(w.policyId, w.group)),
      ...budgets.map((b) => budgetKey(b.policyId, b.period, b.group)),
      ...windows.map((w) => windowGroupsKey(w.policyId)),
    ];
    const args: Array<string | number> = [now, windows.length, budgets.length, WINDOW_BUCKETS];
    for (const w of windows) args.push(w.limit, bucketMsOf(w.windowMs), w.cost, w.group);
    for (const b of budgets) args.push(b.limit);
    const [allowed, live, spent] = await this.#redis.gwLimitAdmit(keys.length, ...keys, ...args);
    return {
      allowed: allowed === 1,
      windows: windows.map((w, i) => windowState(bucketsOf(live[i] ?? []), now, w.windowMs, w.limit, w.cost)),
      budgets: budgets.map((_, k) => Number(spent[k] ?? 0)),
    };
  }

  async charge(windows: readonly WindowCharge[], budgets: readonly BudgetCharge[], now: number): Promise<Array<number | null>> {
    const keys = [
      ...windows.map((w) => windowKey(w.policyId, w.group)),
      ...budgets.map((b) => budgetKey(b.policyId, b.period, b.group)),
      ...windows.map((w) => windowGroupsKey(w.policyId)),
      ...budgets.map((b) => budgetGroupsKey(b.policyId, b.period)),
    ];
    const args: Array<string | number> = [now, windows.length, budgets.length, WINDOW_BUCKETS];
    for (const w of windows) args.push(bucketMsOf(w.windowMs), Math.round(w.amount), w.group);
    for (const b of budgets) args.push(String(b.amount), b.alertAt === null ? '' : String(b.alertAt), b.endsAt === null ? '' : Math.max(1, b.endsAt + DAY_MS - now), b.group);
    const crossed = await this.#redis.gwLimitCharge(keys.length, ...keys, ...args);
    return crossed.map((after) => (after === '' ? null : Number(after)));
  }

  async windowUsage(policyId: string, windowMs: number, limit: number, now: number): Promise<GroupCount[]> {
    const groups = await this.#redis.smembers(windowGroupsKey(policyId));
    if (groups.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const group of groups) pipeline.hgetall(windowKey(policyId, group));
    const replies = (await pipeline.exec()) ?? [];
    const oldest = Math.floor(now / bucketMsOf(windowMs)) - WINDOW_BUCKETS;
    const counts: GroupCount[] = [];
    groups.forEach((group, i) => {
      const hash = (replies[i]?.[1] ?? {}) as Record<string, string>;
      const buckets = new Map<number, number>();
      for (const [index, count] of Object.entries(hash)) if (Number(index) >= oldest) buckets.set(Number(index), Number(count));
      if (buckets.size === 0) return;
      const state = windowState(buckets, now, windowMs, limit, 1);
      counts.push({ group, used: state.used, resetMs: state.resetMs });
    });
    return counts;
  }

  async budgetUsage(policyId: string, period: string): Promise<GroupCount[]> {
    const groups = await this.#redis.smembers(budgetGroupsKey(policyId, period));
    if (groups.length === 0) return [];
    const values = await this.#redis.mget(...groups.map((group) => budgetKey(policyId, period, group)));
    return groups.map((group, i) => ({ group, used: Number(values[i] ?? 0) }));
  }

  async close(): Promise<void> {
    // The connection is the process's, closed by whoever opened it.
  }
}

function bucketsOf(flat: readonly string[]): Map<number, number> {
  const buckets = new Map<number, number>();
  for (let j = 0; j + 1 < flat.length; j += 2) buckets.set(Number(flat[j]), (buckets.get(Number(flat[j])) ?? 0) + Number(flat[j + 1]));
  return buckets;
}

function windowKey(policyId: string, group: string): string {
  return `${PREFIX}w:${policyId}:${group}`;
}

function budgetKey(policyId: string, period: string, group: string): string {
  return `${PREFIX}b:${policyId}:${period}:${group}`;
}

function windowGroupsKey(policyId: string): string {
  return `${PREFIX}wg:${policyId}`;
}

function budgetGroupsKey(policyId: string, period: string): string {
  return `${PREFIX}bg:${policyId}:${period}`;
}
