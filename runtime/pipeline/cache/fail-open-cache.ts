// A shared cache backend that never fails a request: a lookup Redis does not answer is a miss, a
// store it does not take is dropped (ARCHITECTURE §6: Redis down means cache off, never a 5xx).
// Each failure is counted in /metrics; the first of an outage is logged, and the recovery.
import type { GatewayLogger } from '../../core/log.ts';
import { Outage } from '../../core/outage.ts';
import type { CachedAnswer } from './cached-answer.ts';
import type { CachePurge, CacheTags, ResponseCache } from './response-cache.ts';

export class FailOpenCache implements ResponseCache {
  readonly #shared: ResponseCache;
  readonly #outage: Outage;
  readonly #onFailure: (operation: 'get' | 'set') => void;

  constructor(shared: ResponseCache, logger: GatewayLogger, onFailure: (operation: 'get' | 'set') => void) {
    this.#shared = shared;
    this.#outage = new Outage(logger, 'cache_unavailable', 'cache_shared_again');
    this.#onFailure = onFailure;
  }

  get(key: string): Promise<CachedAnswer | null> {
    return this.#shared.get(key).then(this.#answered, (error: unknown) => this.#failed('get', error, null));
  }

  set(key: string, answer: CachedAnswer, ttlMs: number, tags: CacheTags): Promise<void> {
    return this.#shared.set(key, answer, ttlMs, tags).then(this.#answered, (error: unknown) => this.#failed('set', error, undefined));
  }

  /** The admin's purge reports a backend that does not answer (a 503), not zero entries. */
  purge(filter: CachePurge): Promise<number> {
    return this.#shared.purge(filter);
  }

  readonly #answered = <T>(value: T): T => {
    this.#outage.recovered();
    return value;
  };

  #failed<T>(operation: 'get' | 'set', error: unknown, value: T): T {
    this.#onFailure(operation);
    this.#outage.failed(() => ({ error: (error as Error).message, note: 'Redis failed or did not answer; requests go to the provider uncached until it answers' }));
    return value;
  }
}
