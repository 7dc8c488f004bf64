// Circuit breakers shared by every gateway process on one Redis (ARCHITECTURE §6): a failure seen by
// any process counts toward the one threshold, and a circuit one process opens is open in all.
//
// The request path never waits on Redis: `get` answers from this process's copy (a MemoryBreakerStore),
// and `apply` changes that copy at once, then sends the event to Redis, where a script applies the
// same transition (nextBreakerState) to the shared state atomically and publishes the result; every
// process, this one included, takes the published state into its copy. A process that starts loads
// the shared states first. Redis down: the copy goes on alone, as a process without Redis would, and
// the first failure is logged; shared states expire an hour after their last event.
// Every change carries a version (one counter in Redis), so a copy never takes an older state after a
// newer one, whichever connection brought it first.
//
// Two processes may each admit a half-open trial within one publish of the other (a round trip on
// loopback): the trial slot is per process until the claim arrives.
import type { Redis } from 'ioredis';
import type { GatewayLogger } from '../core/log.ts';
import { Outage } from '../core/outage.ts';
import { evictOldest } from '../core/evict-oldest.ts';
import { type BreakerEvent, type BreakerState, type BreakerStore, CLOSED, MemoryBreakerStore } from './breaker.ts';

const STATE_PREFIX = 'gw:cb:s:';
/** One counter for every circuit: each change gets a higher number, so a copy never takes an older state after a newer one. */
const VERSION_KEY = 'gw:cb:v';
const CHANNEL = 'gw:cb:changes';
/** A circuit no process touched for this long is forgotten (closed). */
const STATE_TTL_MS = 60 * 60 * 1000;
/** Versions remembered per copy, as many as the copy keeps circuits. */
const MAX_VERSIONS = 100_000;

// KEYS[1] the circuit, KEYS[2] the version counter; ARGV: event kind (s, f, t), now, threshold,
// cooldown, TTL ms, channel, the circuit's key as the gateway names it. -1 stands for null.
// Mirrors nextBreakerState.
const APPLY = `
local s = redis.call('HMGET', KEYS[1], 'f', 'o', 't')
local f = tonumber(s[1]) or 0
local o = tonumber(s[2]) or -1
local t = tonumber(s[3]) or -1
local kind = ARGV[1]
local now = tonumber(ARGV[2])
if kind == 's' then
  f = 0; o = -1; t = -1
elseif kind == 't' then
  t = now
else
  f = f + 1
  if o == -1 then
    if f >= tonumber(ARGV[3]) then o = now + tonumber(ARGV[4]) end
    t = -1
  elseif now >= o then
    o = now + tonumber(ARGV[4]); t = -1
  end
end
local v = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'f', f, 'o', o, 't', t, 'v', v)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PUBLISH', ARGV[6], cjson.encode({ARGV[7], f, o, t, v}))
return {f, o, t, v}
`;

type Wire = [key: string, failures: number, openUntil: number, trialStartedAt: number, version: number];

export class RedisBreakerStore implements BreakerStore {
  readonly #redis: ScriptedRedis;
  readonly #subscriber: Redis;
  readonly #local: MemoryBreakerStore;
  readonly #onFailure: () => void;
  /** The version of the shared state each circuit of the copy was last taken from. */
  readonly #versions = new Map<string, number>();
  readonly #outage: Outage;

  /**
   * `subscriber`: a connection of its own (a subscribed connection takes no other command), queueing
   * commands until it connects. `onFailure`: called for each event Redis failed or did not answer (a metric).
   */
  constructor(redis: Redis, subscriber: Redis, logger: GatewayLogger, onFailure: () => void = () => {}) {
    redis.defineCommand('gwBreakerApply', { numberOfKeys: 2, lua: APPLY });
    this.#redis = redis as ScriptedRedis;
    this.#subscriber = subscriber;
    this.#outage = new Outage(logger, 'breakers_not_shared', 'breakers_shared_again');
    this.#local = new MemoryBreakerStore();
    this.#onFailure = onFailure;
    // The main connection's errors are logged where it is opened; this one's say the circuits are not shared.
    subscriber.on('error', (error: Error) => this.#reportFailure(error));
  }

  /**
   * Follows the other processes' changes, and loads the shared states, each time the subscriber
   * connection is (again) ready. Resolves once the first load is done; a Redis that is not there
   * keeps it waiting, so a caller bounds the wait.
   */
  start(): Promise<void> {
    this.#subscriber.on('message', (channel: string, message: string) => {
      if (channel === CHANNEL) this.#takeMessage(message);
    });
    return new Promise<void>((resolve) => {
      const follow = (): void => {
        // A Redis that restarted empty counts versions from 1 again: what this copy took before must not outrank them.
        this.#versions.clear();
        // Subscribed first: a change made during the load then arrives as a message, and versions order the two.
        this.#subscriber.subscribe(CHANNEL).then(() => this.#load()).then(resolve, (error: unknown) => {
          this.#reportFailure(error);
          resolve();
        });
      };
      this.#subscriber.on('ready', follow);
      if (this.#subscriber.status === 'ready') follow();
    });
  }

  stop(): void {
    this.#subscriber.disconnect();
  }

  get(key: string): BreakerState | undefined {
    return this.#local.get(key);
  }

  apply(key: string, event: BreakerEvent): void {
    this.#local.apply(key, event);
    const kind = event.kind === 'success' ? 's' : event.kind === 'trial' ? 't' : 'f';
    const now = event.kind === 'success' ? 0 : event.now;
    const threshold = event.kind === 'failure' ? event.failureThreshold : 0;
    const cooldown = event.kind === 'failure' ? event.cooldownMs : 0;
    this.#redis.gwBreakerApply(STATE_PREFIX + encodeURIComponent(key), VERSION_KEY, kind, now, threshold, cooldown, STATE_TTL_MS, CHANNEL, key).then(
      ([f, o, t, v]) => {
        this.#take(key, f, o, t, v);
        this.#outage.recovered();
      },
      (error: unknown) => {
        this.#onFailure();
        this.#reportFailure(error);
      },
    );
  }

  entries(): Iterable<[string, BreakerState]> {
    return this.#local.entries();
  }

  /** Resolves once the events sent before it was called have been applied in Redis (commands answer in order). */
  async settled(): Promise<void> {
    await this.#redis.ping();
  }

  #takeMessage(message: string): void {
    let wire: unknown;
    try {
      wire = JSON.parse(message);
    } catch {
      return;
    }
    if (!Array.isArray(wire) || wire.length !== 5 || typeof wire[0] !== 'string' || !wire.slice(1).every((n) => typeof n === 'number')) return;
    const [key, f, o, t, v] = wire as Wire;
    this.#take(key, f, o, t, v);
  }

  #take(key: string, failures: number, openUntil: number, trial: number, version: number): void {
    if (version <= (this.#versions.get(key) ?? 0)) return;
    this.#versions.delete(key);
    this.#versions.set(key, version);
    evictOldest(this.#versions, MAX_VERSIONS);
    this.#local.set(key, stateOf(failures, openUntil, trial));
  }

  async #load(): Promise<void> {
    let cursor = '0';
    do {
      const [next, keys] = await this.#redis.scan(cursor, 'MATCH', `${STATE_PREFIX}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length === 0) continue;
      // One round trip per page of keys, not one per key.
      const batch = this.#redis.pipeline();
      for (const redisKey of keys) batch.hmget(redisKey, 'f', 'o', 't', 'v');
      const replies = (await batch.exec()) ?? [];
      keys.forEach((redisKey, i) => {
        const [error, fields] = replies[i] ?? [null, null];
        if (error !== null) throw error;
        const [f, o, t, v] = (fields as Array<string | null> | null) ?? [null, null, null, null];
        if (f === null || v === null) return;
        this.#take(decodeURIComponent(redisKey.slice(STATE_PREFIX.length)), Number(f), Number(o), Number(t), Number(v));
      });
    } while (cursor !== '0');
  }

  #reportFailure(error: unknown): void {
    this.#outage.failed(() => ({ error: (error as Error).message, note: 'Redis failed or did not answer; circuits count in this process only until it answers' }));
  }
}

interface ScriptedRedis extends Redis {
  gwBreakerApply(...args: Array<string | number>): Promise<[number, number, number, number]>;
}

function stateOf(failures: number, openUntil: number, trialStartedAt: number): BreakerState {
  if (failures === 0 && openUntil === -1 && trialStartedAt === -1) return CLOSED;
  return { consecutiveFailures: failures, openUntil: openUntil === -1 ? null : openUntil, trialStartedAt: trialStartedAt === -1 ? null : trialStartedAt };
}
