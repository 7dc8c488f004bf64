// Every rate-limits and usage-limits policy in memory, kept current from the store's change feed:
// what enforcement (a later issue) reads on the request path, which never waits on the database.
import type { StoreChange } from '../../store/change-feed.ts';
import type { GatewayStore } from '../../store/open-store.ts';
import type { RateLimitPolicy } from '../../store/rate-limit-policy-store.ts';
import type { UsageLimitPolicy } from '../../store/usage-limit-policy-store.ts';

export class PolicyCatalog {
  readonly #store: GatewayStore;
  #rateLimits = new Map<string, RateLimitPolicy>();
  #usageLimits = new Map<string, UsageLimitPolicy>();

  constructor(store: GatewayStore) {
    this.#store = store;
  }

  /** Active rate-limits policies (archived ones are not enforced). */
  activeRateLimits(): RateLimitPolicy[] {
    return [...this.#rateLimits.values()].filter((p) => p.status === 'active');
  }

  usageLimits(): UsageLimitPolicy[] {
    return [...this.#usageLimits.values()];
  }

  async loadAll(): Promise<void> {
    await this.#loadAllRateLimits();
    await this.#loadAllUsageLimits();
  }

  readonly onRateLimitsChange = async (change: StoreChange): Promise<void> => {
    if (change.all) return this.#loadAllRateLimits();
    for (const id of change.ids) setOrDelete(this.#rateLimits, id, await this.#store.rateLimits.get(id));
  };

  readonly onUsageLimitsChange = async (change: StoreChange): Promise<void> => {
    if (change.all) return this.#loadAllUsageLimits();
    for (const id of change.ids) setOrDelete(this.#usageLimits, id, await this.#store.usageLimits.get(id));
  };

  async #loadAllRateLimits(): Promise<void> {
    const { items } = await this.#store.rateLimits.list({}, { limit: null, offset: 0 });
    this.#rateLimits = new Map(items.map((p) => [p.id, p]));
  }

  async #loadAllUsageLimits(): Promise<void> {
    const { items } = await this.#store.usageLimits.list({}, { limit: null, offset: 0 });
    this.#usageLimits = new Map(items.map((p) => [p.id, p]));
  }
}

function setOrDelete<T>(map: Map<string, T>, id: string, value: T | null): void {
  if (value === null) map.delete(id);
  else map.set(id, value);
}
