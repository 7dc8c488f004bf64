// The response cache in Redis (REDIS_URL), shared by every gateway process: one key per entry with
// its TTL (a lookup is one GET), and per-tag sorted sets of entry keys, scored by when each entry
// expires, so DELETE /v1/cache can find what to purge. A set lives as long as its longest-lived
// entry, and each store drops the members whose entry has expired: a set holds about its live
// entries. (Plain sets kept every key ever stored while traffic kept extending their life: an
// organisation's set grew without bound.)
import type { Redis } from 'ioredis';
import { type CachedAnswer, decodeAnswer, encodeAnswer } from './cached-answer.ts';
import type { CachePurge, CacheTags, ResponseCache } from './response-cache.ts';

const ENTRY_PREFIX = 'gw:cache:e:';
/** Sorted sets (the plain sets of earlier versions, under gw:cache:t:, expire on their own). */
const TAG_PREFIX = 'gw:cache:z:';
/** Entries a purge looks at per script call: a call holds Redis, which every process shares. */
const PURGE_BATCH = 500;

// Redis's own clock, so every process scores alike.
const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

// KEYS: the entry, then its tag sets; ARGV: the encoded answer, ttl ms. A tag set's expiry only
// ever grows, so it outlives every entry it names; members that expired go as new ones come.
const STORE = `${NOW}
local ttl = tonumber(ARGV[2])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
for i = 2, #KEYS do
  redis.call('ZADD', KEYS[i], now + ttl, KEYS[1])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
  if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
return 1
`;

// KEYS: the tag sets an entry must be in, the smallest first; ARGV: offset, count. Looks at one
// slice of the first set's live members; deletes those in every set. Returns {looked at, deleted
// entries that lived, kept}: the caller's next offset moves past the kept ones.
const PURGE = `${NOW}
local members = redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf', 'LIMIT', tonumber(ARGV[1]), tonumber(ARGV[2]))
local purged = 0
local kept = 0
for _, member in ipairs(members) do
  local named = true
  for k = 2, #KEYS do
    if not redis.call('ZSCORE', KEYS[k], member) then
      named = false
      break
    end
  end
  if named then
    purged = purged + redis.call('DEL', member)
    for k = 1, #KEYS do redis.call('ZREM', KEYS[k], member) end
  else
    kept = kept + 1
  end
end
return {#members, purged, kept}
`;

interface ScriptedRedis extends Redis {
  gwCacheStore(numKeys: number, ...args: Array<string | Buffer | number>): Promise<number>;
  gwCachePurge(numKeys: number, ...args: Array<string | number>): Promise<[number, number, number]>;
}

export class RedisResponseCache implements ResponseCache {
  readonly #redis: ScriptedRedis;
  readonly #purgeBatch: number;

  constructor(redis: Redis, options: { purgeBatch?: number } = {}) {
    redis.defineCommand('gwCacheStore', { lua: STORE });
    redis.defineCommand('gwCachePurge', { lua: PURGE });
    this.#redis = redis as ScriptedRedis;
    this.#purgeBatch = options.purgeBatch ?? PURGE_BATCH;
  }

  async get(key: string): Promise<CachedAnswer | null> {
    const bytes = await this.#redis.getBuffer(ENTRY_PREFIX + key);
    return bytes === null ? null : decodeAnswer(bytes);
  }

  async set(key: string, answer: CachedAnswer, ttlMs: number, tags: CacheTags): Promise<void> {
    if (ttlMs <= 0) return;
    const tagKeys = [tagKey('o', tags.organisation)];
    if (tags.namespace !== null) tagKeys.push(tagKey('n', tags.organisation, tags.namespace));
    if (tags.configId !== null) tagKeys.push(tagKey('c', tags.organisation, tags.configId));
    await this.#redis.gwCacheStore(1 + tagKeys.length, ENTRY_PREFIX + key, ...tagKeys, encodeAnswer(answer), Math.ceil(ttlMs));
  }

  /** A slice at a time (one script call each), so a purge of many entries never holds Redis long. */
  async purge(filter: CachePurge): Promise<number> {
    // The narrowest set first: it is the one walked; the others are only asked about its members.
    const tagKeys: string[] = [];
    if (filter.namespace !== undefined) tagKeys.push(tagKey('n', filter.organisation, filter.namespace));
    if (filter.configId !== undefined) tagKeys.push(tagKey('c', filter.organisation, filter.configId));
    tagKeys.push(tagKey('o', filter.organisation));
    let purged = 0;
    for (let offset = 0; ; ) {
      const [looked, deleted, kept] = await this.#redis.gwCachePurge(tagKeys.length, ...tagKeys, offset, this.#purgeBatch);
      purged += Number(deleted);
      offset += Number(kept);
      if (Number(looked) < this.#purgeBatch) return purged;
    }
  }
}

/** `o`: every entry of an organisation; `n`: of one namespace in it; `c`: of one saved config in it. JSON keeps the parts apart whatever they contain. */
export function tagKey(kind: 'o' | 'n' | 'c', ...parts: string[]): string {
  return `${TAG_PREFIX}${kind}:${JSON.stringify(parts)}`;
}
