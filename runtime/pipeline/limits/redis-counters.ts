// Limit counters in Redis, shared by every gateway process on it: N processes enforce one limit,
// not N. Each call is one script run (one round trip, atomic), whatever the number of policies.
//
// Keys (all under `gw:lim:`):
//   w:<policy>:<group>           hash  bucket index → count (window.ts), plus `s` (their sum), `f` (the
//                                      oldest bucket kept) and `l` (the newest); expires one window after its last write
//   b:<policy>:<period>:<group>  float what the group used in the period, expires a day after the period
//   wz:<policy>                  sorted set of the groups with a live window, each scored by its window's expiry
//                                      (ms): trimmed of expired groups as it is written, so groups that come and go
//                                      (one per user) do not pile up while traffic keeps the set alive
//   bg:<policy>:<period>         set of the groups with a budget in the period (each has its b: key)
//   budgets-seeded               set once Redis holds the store's budgets (see seedBudgets)
//   ended                        sorted set of the `<policy>:<period>` of budgets with a periodic reset,
//                                      each scored by when its keys are to go (a day after the period)
// The group sets are for the usage endpoints, and bound a policy's groups (GATEWAY_LIMIT_MAX_GROUPS):
// a new group of a policy whose live windows (ZCOUNT) or period's budgets (SCARD) are that many is
// refused. Budget keys never expire in Redis: a key with an expiry is one Redis may evict under
// `maxmemory-policy volatile-*` (the usual setting of managed Redis, and what makes room among the
// cache's entries), and an evicted budget would start over. The gateway deletes a period's keys
// itself once it is a day over (sweepEnded).
// The running sum keeps an admission O(1): only buckets that left the window since the last write
// are read (usually none or one); the whole hash is read only to answer a refusal's Retry-After.
import type { Redis } from 'ioredis';
import { type Admission, type BudgetCharge, type BudgetCheck, DEFAULT_MAX_GROUPS, type GroupCount, type GroupFilter, type LimitCounters, type WindowCharge, type WindowCheck } from './counters.ts';
import { type Page, type PageRequest, sortedPage } from '../../store/page.ts';
import type { BudgetSpend } from '../../store/usage-budget-store.ts';
import { admittedState, bucketMsOf, WINDOW_BUCKETS, windowState } from './window.ts';
import { ENDED_KEPT_MS } from './periods.ts';

const PREFIX = 'gw:lim:';
const ENDED_KEY = `${PREFIX}ended`;
/** Periods, and groups of one, handled per command by sweepEnded. */
const SWEEP_SLICE = 500;
/** Set once Redis holds the store's budgets (seedBudgets); never expires, so its absence means Redis lost its data. */
const SEEDED_KEY = `${PREFIX}budgets-seeded`;
/** Budgets per script call when seeding (a call stays well under the command timeout). */
const SEED_SLICE = 200;

// Drops the buckets of a window hash older than `oldest`; returns its sum and newest bucket (nil when empty).
const PRUNE = `
local function prune(key, oldest)
  local meta = redis.call('HMGET', key, 's', 'f', 'l')
  if not meta[1] then return 0, nil end
  local sum = tonumber(meta[1]); local first = tonumber(meta[2]); local last = tonumber(meta[3])
  if last < oldest then redis.call('DEL', key); return 0, nil end
  if first < oldest then
    for index = first, oldest - 1 do
      local n = redis.call('HGET', key, tostring(index))
      if n then sum = sum - tonumber(n); redis.call('HDEL', key, tostring(index)) end
    end
    redis.call('HSET', key, 's', tostring(sum), 'f', tostring(oldest))
  end
  return sum, last
end
-- Counts \`amount\` in bucket \`index\`; \`last\` is the newest bucket before (prune's). Expiry and the
-- group set are refreshed when a newer bucket starts, not on every request (a process whose clock is
-- behind may count into an older bucket: \`l\` never moves back).
local function add(key, index, amount, bms, span, last, groups, group, now)
  redis.call('HINCRBY', key, tostring(index), amount)
  local sum = redis.call('HINCRBY', key, 's', amount)
  if not last or index > last then
    local ttl = math.ceil(bms * (span + 1))
    if not last then redis.call('HSET', key, 'f', tostring(index)) end
    redis.call('HSET', key, 'l', tostring(index))
    redis.call('PEXPIRE', key, ttl)
    redis.call('ZADD', groups, now + ttl, group)
    redis.call('ZREMRANGEBYSCORE', groups, '-inf', now)
    redis.call('PEXPIRE', groups, ttl)
  end
  return sum
end
`;

// KEYS: window keys…, budget keys…, window group sets…, budget group sets…; ARGV: now, #windows,
// #budgets, span, then per window: limit, bucket ms, cost, group; then per budget: limit; last, the
// most groups a policy keeps (0: no bound).
// Returns {allowed, per window {used, newest bucket or -1}, per budget used, and when refused per
// window the flat {index, count, …} of its buckets; then '' or, when the request is of a new group of
// a policy that keeps the most groups already, 'w<i>' or 'b<k>' naming that check}.
const ADMIT = PRUNE + `
local now = tonumber(ARGV[1]); local nw = tonumber(ARGV[2]); local nb = tonumber(ARGV[3]); local span = tonumber(ARGV[4])
local allowed = 1
local sums = {}; local newest = {}
for i = 1, nw do
  local base = 4 + (i - 1) * 4
  local limit = tonumber(ARGV[base + 1]); local bms = tonumber(ARGV[base + 2]); local cost = tonumber(ARGV[base + 3])
  local sum, last = prune(KEYS[i], math.floor(now / bms) - span)
  if sum >= limit or sum + cost > limit then allowed = 0 end
  sums[i] = sum; newest[i] = last
end
local spent = {}
local known = {}
local bbase = 4 + nw * 4
for k = 1, nb do
  local value = redis.call('GET', KEYS[nw + k])
  local used = tonumber(value or '0')
  if used >= tonumber(ARGV[bbase + k]) then allowed = 0 end
  spent[k] = tostring(used); known[k] = value ~= false
end
-- A new group of a policy that keeps the most already (live windows; budgets of the period) is refused.
local most = tonumber(ARGV[#ARGV])
local full = ''
if most > 0 then
  for i = 1, nw do
    if full == '' and not newest[i] and redis.call('ZCOUNT', KEYS[nw + nb + i], now, '+inf') >= most then full = 'w' .. i end
  end
  for k = 1, nb do
    if full == '' and not known[k] and redis.call('SCARD', KEYS[nw + nb + nw + k]) >= most then full = 'b' .. k end
  end
  if full ~= '' then allowed = 0 end
end
local windows = {}
for i = 1, nw do
  local base = 4 + (i - 1) * 4
  local bms = tonumber(ARGV[base + 2]); local cost = tonumber(ARGV[base + 3])
  if allowed == 1 and cost > 0 then
    local index = math.floor(now / bms)
    sums[i] = add(KEYS[i], index, cost, bms, span, newest[i], KEYS[nw + nb + i], ARGV[base + 4], now)
    newest[i] = index
  end
  local flat = {}
  if allowed == 0 then
    local all = redis.call('HGETALL', KEYS[i])
    for j = 1, #all, 2 do
      if all[j] ~= 's' and all[j] ~= 'f' and all[j] ~= 'l' then flat[#flat + 1] = all[j]; flat[#flat + 1] = all[j + 1] end
    end
  end
  windows[i] = {tostring(sums[i]), tostring(newest[i] or -1), flat}
end
return {allowed, windows, spent, full}
`;

// KEYS: window keys…, budget keys…, window group sets…, budget group sets…, the ended index; ARGV:
// now, #windows, #budgets, span, then per window: bucket ms, amount, group; per budget: amount, alert
// (or ''), when its keys go (ms, or '' for a budget without reset), `<policy>:<period>`, group.
// Returns per budget the count after the charge when it crossed its alert threshold, else ''.
const CHARGE = PRUNE + `
local now = tonumber(ARGV[1]); local nw = tonumber(ARGV[2]); local nb = tonumber(ARGV[3]); local span = tonumber(ARGV[4])
for i = 1, nw do
  local base = 4 + (i - 1) * 3
  local bms = tonumber(ARGV[base + 1])
  local index = math.floor(now / bms)
  local _, last = prune(KEYS[i], index - span)
  add(KEYS[i], index, tonumber(ARGV[base + 2]), bms, span, last, KEYS[nw + nb + i], ARGV[base + 3], now)
end
local crossed = {}
local bbase = 4 + nw * 3
for k = 1, nb do
  local base = bbase + (k - 1) * 5
  local amount = tonumber(ARGV[base + 1])
  local after = tonumber(redis.call('INCRBYFLOAT', KEYS[nw + k], ARGV[base + 1]))
  local before = after - amount
  local alert = ARGV[base + 2]
  crossed[k] = ''
  if alert ~= '' and before < tonumber(alert) and after >= tonumber(alert) then crossed[k] = tostring(after) end
  redis.call('SADD', KEYS[nw + nb + nw + k], ARGV[base + 5])
  if ARGV[base + 3] ~= '' then redis.call('ZADD', KEYS[nw + nb + nw + nb + 1], ARGV[base + 3], ARGV[base + 4]) end
end
return crossed
`;

// KEYS: budget keys…, their group sets…, the ended index; ARGV: #budgets, then per budget: what the
// store holds, when its keys go (ms, or ''), `<policy>:<period>`, group. Raises each budget to the
// store's count where Redis holds less; never lowers one.
const SEED = `
local n = tonumber(ARGV[1])
for k = 1, n do
  local base = 1 + (k - 1) * 4
  local have = tonumber(redis.call('GET', KEYS[k]) or '0')
  if tonumber(ARGV[base + 1]) > have then redis.call('SET', KEYS[k], ARGV[base + 1]) end
  redis.call('SADD', KEYS[n + k], ARGV[base + 4])
  if ARGV[base + 2] ~= '' then redis.call('ZADD', KEYS[n + n + 1], ARGV[base + 2], ARGV[base + 3]) end
end
return n
`;

type Reply = [number, Array<[string, string, string[]]>, string[], string];

interface ScriptedRedis extends Redis {
  gwLimitAdmit(numKeys: number, ...args: Array<string | number>): Promise<Reply>;
  gwLimitCharge(numKeys: number, ...args: Array<string | number>): Promise<string[]>;
  gwLimitSeed(numKeys: number, ...args: Array<string | number>): Promise<number>;
}

export class RedisCounters implements LimitCounters {
  readonly #redis: ScriptedRedis;
  /** Groups a policy keeps at most (live rate windows; budgets per period), counted across processes; 0: no bound. */
  readonly #maxGroups: number;

  constructor(redis: Redis, maxGroups = DEFAULT_MAX_GROUPS) {
    this.#maxGroups = maxGroups;
    redis.defineCommand('gwLimitAdmit', { lua: ADMIT });
    redis.defineCommand('gwLimitCharge', { lua: CHARGE });
    redis.defineCommand('gwLimitSeed', { lua: SEED });
    this.#redis = redis as ScriptedRedis;
  }

  async admit(windows: readonly WindowCheck[], budgets: readonly BudgetCheck[], now: number): Promise<Admission> {
    const keys = [
      ...windows.map((w) => windowKey(w.policyId, w.group)),
      ...budgets.map((b) => budgetKey(b.policyId, b.period, b.group)),
      ...windows.map((w) => windowGroupsKey(w.policyId)),
      ...budgets.map((b) => budgetGroupsKey(b.policyId, b.period)),
    ];
    const args: Array<string | number> = [now, windows.length, budgets.length, WINDOW_BUCKETS];
    for (const w of windows) args.push(w.limit, bucketMsOf(w.windowMs), w.cost, w.group);
    for (const b of budgets) args.push(b.limit);
    args.push(this.#maxGroups);
    const [allowed, states, spent, full] = await this.#redis.gwLimitAdmit(keys.length, ...keys, ...args);
    const fullCheck = full === '' ? undefined : full[0] === 'w' ? windows[Number(full.slice(1)) - 1] : budgets[Number(full.slice(1)) - 1];
    return {
      ...(fullCheck === undefined ? {} : { groupsFull: fullCheck.policyId }),
      allowed: allowed === 1,
      windows: windows.map((w, i) => {
        const [used, newest, flat] = states[i];
        return allowed === 1 ? admittedState(Number(used), newest === '-1' ? null : Number(newest), now, w.windowMs) : windowState(bucketsOf(flat), now, w.windowMs, w.limit, w.cost);
      }),
      budgets: budgets.map((_, k) => Number(spent[k] ?? 0)),
    };
  }

  async charge(windows: readonly WindowCharge[], budgets: readonly BudgetCharge[], now: number): Promise<Array<number | null>> {
    const keys = [
      ...windows.map((w) => windowKey(w.policyId, w.group)),
      ...budgets.map((b) => budgetKey(b.policyId, b.period, b.group)),
      ...windows.map((w) => windowGroupsKey(w.policyId)),
      ...budgets.map((b) => budgetGroupsKey(b.policyId, b.period)),
      ENDED_KEY,
    ];
    const args: Array<string | number> = [now, windows.length, budgets.length, WINDOW_BUCKETS];
    for (const w of windows) args.push(bucketMsOf(w.windowMs), Math.round(w.amount), w.group);
    for (const b of budgets) args.push(String(b.amount), b.alertAt === null ? '' : String(b.alertAt), b.endsAt === null ? '' : b.endsAt + ENDED_KEPT_MS, `${b.policyId}:${b.period}`, b.group);
    const crossed = await this.#redis.gwLimitCharge(keys.length, ...keys, ...args);
    return crossed.map((after) => (after === '' ? null : Number(after)));
  }

  async windowUsage(policyId: string, windowMs: number, limit: number, now: number, page: PageRequest, keep: GroupFilter): Promise<Page<GroupCount>> {
    const live = (await this.#redis.zrangebyscore(windowGroupsKey(policyId), now, '+inf')).filter((group) => keep === null || keep(group));
    const groups = sortedPage(live, page);
    if (groups.length === 0) return { items: [], total: live.length };
    const pipeline = this.#redis.pipeline();
    for (const group of groups) pipeline.hgetall(windowKey(policyId, group));
    const replies = (await pipeline.exec()) ?? [];
    const oldest = Math.floor(now / bucketMsOf(windowMs)) - WINDOW_BUCKETS;
    const counts: GroupCount[] = [];
    groups.forEach((group, i) => {
      const hash = (replies[i]?.[1] ?? {}) as Record<string, string>;
      const buckets = new Map<number, number>();
      for (const [index, count] of Object.entries(hash)) if (/^\d+$/.test(index) && Number(index) >= oldest) buckets.set(Number(index), Number(count));
      if (buckets.size === 0) return;
      const state = windowState(buckets, now, windowMs, limit, 1);
      counts.push({ group, used: state.used, resetMs: state.resetMs });
    });
    return { items: counts, total: live.length };
  }

  async budgetUsage(policyId: string, period: string, page: PageRequest, keep: GroupFilter): Promise<Page<GroupCount>> {
    const all = (await this.#redis.smembers(budgetGroupsKey(policyId, period))).filter((group) => keep === null || keep(group));
    const groups = sortedPage(all, page);
    if (groups.length === 0) return { items: [], total: all.length };
    const values = await this.#redis.mget(...groups.map((group) => budgetKey(policyId, period, group)));
    return { items: groups.map((group, i) => ({ group, used: Number(values[i] ?? 0) })), total: all.length };
  }

  /**
   * Whether this Redis holds the budgets the store has: false when it is new to the gateway, or lost
   * its data (restarted without persistence, flushed). A replica promoted while behind holds the
   * marker and misses only the charges it had not received.
   */
  async holdsBudgets(): Promise<boolean> {
    return (await this.#redis.exists(SEEDED_KEY)) === 1;
  }

  /** Raises each budget to what the store holds where Redis holds less, then marks Redis as holding them. */
  async seedBudgets(spends: readonly BudgetSpend[]): Promise<void> {
    for (let from = 0; from < spends.length; from += SEED_SLICE) {
      const slice = spends.slice(from, from + SEED_SLICE);
      const keys = [...slice.map((b) => budgetKey(b.policyId, b.period, b.group)), ...slice.map((b) => budgetGroupsKey(b.policyId, b.period)), ENDED_KEY];
      const args: Array<string | number> = [slice.length];
      for (const b of slice) args.push(String(b.used), b.endsAt === null ? '' : b.endsAt + ENDED_KEPT_MS, `${b.policyId}:${b.period}`, b.group);
      await this.#redis.gwLimitSeed(keys.length, ...keys, ...args);
    }
    await this.#redis.set(SEEDED_KEY, String(Date.now()));
  }

  /**
   * Deletes the budget keys of periods more than a day over, a slice of groups at a time (never one
   * long command: Redis serves every process's requests meanwhile). Every process may run it; a key
   * deleted twice is no harm. Returns the budgets deleted.
   */
  async sweepEnded(now: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const ended = await this.#redis.zrangebyscore(ENDED_KEY, '-inf', now, 'LIMIT', 0, SWEEP_SLICE);
      if (ended.length === 0) return deleted;
      for (const policyPeriod of ended) {
        const groupsKey = `${PREFIX}bg:${policyPeriod}`;
        let cursor = '0';
        do {
          const [next, groups] = await this.#redis.sscan(groupsKey, cursor, 'COUNT', SWEEP_SLICE);
          cursor = next;
          if (groups.length > 0) deleted += await this.#redis.unlink(...groups.map((group) => `${PREFIX}b:${policyPeriod}:${group}`));
        } while (cursor !== '0');
        await this.#redis.unlink(groupsKey);
        await this.#redis.zrem(ENDED_KEY, policyPeriod);
      }
    }
  }

  async close(): Promise<void> {
    // The connection is the process's, closed by whoever opened it.
  }
}

/** The {index, count, …} list of a window's buckets as a map. */
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

/** A sorted set since the version that trims it; the plain sets of `wg:` before expire on their own. */
function windowGroupsKey(policyId: string): string {
  return `${PREFIX}wz:${policyId}`;
}

function budgetGroupsKey(policyId: string, period: string): string {
  return `${PREFIX}bg:${policyId}:${period}`;
}
