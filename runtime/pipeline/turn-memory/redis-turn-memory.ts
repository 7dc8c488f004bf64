// What the gateway keeps between a conversation's turns (turn-memory.ts) in Redis (REDIS_URL), so
// that a later turn served by any process finds what another kept: one key per value (a digest of
// its scope and key), with a TTL a use extends (GETEX). A Redis that fails or does not answer loses
// nothing a request needs to be served: a value not kept or not found leaves the request as the
// client sent it, which the provider judges as it would without the gateway. The first failure of an
// outage is logged, and the recovery.
import type { Redis } from 'ioredis';
import type { GatewayLogger } from '../../core/log.ts';
import { Outage } from '../../core/outage.ts';
import { TURN_MEMORY_TTL_MS, type TurnEntry, type TurnMemory, turnKey } from './turn-memory.ts';

const PREFIX = 'gw:turn:';

const NOTE = 'Redis failed or did not answer; what the gateway keeps between turns (rewritten reasoning\'s originals, signed thinking of translated answers) is neither kept nor found, and such requests go to the provider as the client sent them, until Redis answers';

type Results = Array<[Error | null, unknown]>;

export class RedisTurnMemory implements TurnMemory {
  readonly #redis: Redis;
  readonly #outage: Outage;

  constructor(redis: Redis, logger: GatewayLogger) {
    this.#redis = redis;
    this.#outage = new Outage(logger, 'turn_memory_unavailable', 'turn_memory_shared_again');
  }

  async keep(scope: string, entries: readonly TurnEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const pipeline = this.#redis.pipeline();
    for (const { key, value } of entries) pipeline.set(PREFIX + turnKey(scope, key), value, 'PX', TURN_MEMORY_TTL_MS);
    await this.#run(() => pipeline.exec(), 'keep');
  }

  async find(scope: string, keys: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (keys.length === 0) return found;
    const pipeline = this.#redis.pipeline();
    for (const key of keys) pipeline.getex(PREFIX + turnKey(scope, key), 'PX', TURN_MEMORY_TTL_MS);
    const results = await this.#run(() => pipeline.exec(), 'find');
    if (results === null) return found;
    keys.forEach((key, i) => {
      const value = results[i]?.[1];
      if (typeof value === 'string') found.set(key, value);
    });
    return found;
  }

  /** The pipeline's results, or null (logged) when Redis failed any of it. */
  async #run(exec: () => Promise<Results | null>, operation: 'keep' | 'find'): Promise<Results | null> {
    try {
      const results = await exec();
      const failed = results === null ? new Error('the pipeline was discarded') : results.find(([error]) => error !== null)?.[0] ?? null;
      if (failed !== null) throw failed;
      this.#outage.recovered({ operation });
      return results;
    } catch (error) {
      this.#outage.failed(() => ({ operation, error: (error as Error).message, note: NOTE }));
      return null;
    }
  }
}
