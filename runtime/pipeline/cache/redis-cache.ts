// The response cache in Redis (REDIS_URL), shared by every gateway process: one key per entry with
// its TTL (a lookup is one GET), and per-tag sets of entry keys so DELETE /v1/cache can find what to
// purge (a set lives as long as its longest-lived entry; members that expired meanwhile are skipped).
import type { Redis } from 'ioredis';
import { type CachedAnswer, decodeAnswer, encodeAnswer } from './cached-answer.ts';
import type { CachePurge, CacheTags, ResponseCache } from './response-cache.ts';

const ENTRY_PREFIX = 'gw:cache:e:';
const TAG_PREFIX = 'gw:cache:t:';

// KEYS: the entry, then its tag sets; ARGV: the encoded answer, ttl ms. A tag set's expiry only
// ever grows, so it outlives every entry it names.
const STORE = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local ttl = tonumber(ARGV[2])
for i = 2, #KEYS do
  redis.call('SADD', KEYS[i], KEYS[1])
  if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
return 1
`;

// KEYS: the tag sets to intersect. Deletes the entries named by all of them; returns how many lived.
const PURGE = `
local members = #KEYS == 1 and redis.call('SMEMBERS', KEYS[1]) or redis.call('SINTER', unpack(KEYS))
local purged = 0
-- In slices: unpack of a long list overflows Lua's stack.
for i = 1, #members, 500 do
  local last = math.min(i + 499, #members)
  purged = purged + redis.call('DEL', unpack(members, i, last))
  for k = 1, #KEYS do redis.call('SREM', KEYS[k], unpack(members, i, last)) end
end
return purged
`;

interface ScriptedRedis extends Redis {
  gwCacheStore(numKeys: number, ...args: Array<string | Buffer | number>): Promise<number>;
  gwCachePurge(numKeys: number, ...args: string[]): Promise<number>;
}

export class RedisResponseCache implements ResponseCache {
  readonly #redis: ScriptedRedis;

  constructor(redis: Redis) {
    redis.defineCommand('gwCacheStore', { lua: STORE });
    redis.defineCommand('gwCachePurge', { lua: PURGE });
    this.#redis = redis as ScriptedRedis;
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

  async purge(filter: CachePurge): Promise<number> {
    const tagKeys = [tagKey('o', filter.organisation)];
    if (filter.namespace !== undefined) tagKeys.push(tagKey('n', filter.organisation, filter.namespace));
    if (filter.configId !== undefined) tagKeys.push(tagKey('c', filter.organisation, filter.configId));
    return Number(await this.#redis.gwCachePurge(tagKeys.length, ...tagKeys));
  }
}

/** `o`: every entry of an organisation; `n`: of one namespace in it; `c`: of one saved config in it. JSON keeps the parts apart whatever they contain. */
function tagKey(kind: 'o' | 'n' | 'c', ...parts: string[]): string {
  return `${TAG_PREFIX}${kind}:${JSON.stringify(parts)}`;
}
