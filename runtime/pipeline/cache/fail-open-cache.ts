// A shared cache backend that never fails a request: a lookup Redis does not answer is a miss, a
// store it does not take is dropped (ARCHITECTURE §6: Redis down means cache off, never a 5xx).
// Each failure is counted in /metrics; the first of an outage is logged, and the recovery, for lookups
// and stores apart: a Redis that answers reads and refuses writes (a replica after a failover says
// READONLY, a full one OOM) would otherwise log an outage and a recovery on every request.
import type { GatewayLogger } from '../../core/log.ts';
import { Outage } from '../../core/outage.ts';
import type { CachedAnswer } from './cached-answer.ts';
import type { CachePurge, CacheTags, ResponseCache } from './response-cache.ts';

type Operation = 'get' | 'set';

const NOTES: Readonly<Record<Operation, string>> = {
  get: 'Redis failed or did not answer a lookup; requests go to the provider uncached until it answers',
  set: 'Redis failed or did not take an answer to store; answers are not cached until it does',
};

export class FailOpenCache implements ResponseCache {
  readonly #shared: ResponseCache;
  readonly #outages: Readonly<Record<Operation, Outage>>;
  readonly #onFailure: (operation: Operation) => void;

  constructor(shared: ResponseCache, logger: GatewayLogger, onFailure: (operation: Operation) => void) {
    this.#shared = shared;
    this.#outages = { get: new Outage(logger, 'cache_unavailable', 'cache_shared_again'), set: new Outage(logger, 'cache_unavailable', 'cache_shared_again') };
    this.#onFailure = onFailure;
  }

  get(key: string): Promise<CachedAnswer | null> {
    return this.#shared.get(key).then(this.#gotten, (error: unknown) => this.#failed('get', error, null));
  }

  set(key: string, answer: CachedAnswer, ttlMs: number, tags: CacheTags): Promise<void> {
    return this.#shared.set(key, answer, ttlMs, tags).then(this.#stored, (error: unknown) => this.#failed('set', error, undefined));
  }

  /** The admin's purge reports a backend that does not answer (a 503), not zero entries. */
  purge(filter: CachePurge): Promise<number> {
    return this.#shared.purge(filter);
  }

  readonly #gotten = (value: CachedAnswer | null): CachedAnswer | null => {
    this.#outages.get.recovered({ operation: 'get' });
    return value;
  };

  readonly #stored = (): void => {
    this.#outages.set.recovered({ operation: 'set' });
  };

  #failed<T>(operation: Operation, error: unknown, value: T): T {
    this.#onFailure(operation);
    this.#outages[operation].failed(() => ({ operation, error: (error as Error).message, note: NOTES[operation] }));
    return value;
  }
}
