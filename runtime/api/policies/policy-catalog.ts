// Every rate-limits and usage-limits policy in memory, kept current from the store's change feed;
// each change recompiles what enforcement reads (Limits), so the request path never waits on the
// database and a policy change takes effect within one change-feed interval in every process.
import type { StoreChange } from '../../store/change-feed.ts';
import type { GatewayStore } from '../../store/open-store.ts';
import type { RateLimitPolicy } from '../../store/rate-limit-policy-store.ts';
import type { UsageLimitPolicy } from '../../store/usage-limit-policy-store.ts';

export class PolicyCatalog {
  readonly #store: GatewayStore;
  readonly #onChange: (catalog: PolicyCatalog) => void;
  #rateLimits = new Map<string, RateLimitPolicy>();
  #usageLimits = new Map<string, UsageLimitPolicy>();

  /** `onChange`: called after every load and change (enforcement recompiles its matchers). */
  constructor(store: GatewayStore, onChange: (catalog: PolicyCatalog) => void = () => undefined) {
    this.#store = store;
    this.#onChange = onChange;
  }

  rateLimit(id: string): RateLimitPolicy | undefined {
    return this.#rateLimits.get(id);
  }

  usageLimit(id: string): UsageLimitPolicy | undefined {
    return this.#usageLimits.get(id);
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
    this.#onChange(this);
  };

  readonly onUsageLimitsChange = async (change: StoreChange): Promise<void> => {
    if (change.all) return this.#loadAllUsageLimits();
    for (const id of change.ids) setOrDelete(this.#usageLimits, id, await this.#store.usageLimits.get(id));
    this.#onChange(this);
  };

  async #loadAllRateLimits(): Promise<void> {
    const { items } = await this.#store.rateLimits.list({}, { limit: null, offset: 0 });
    this.#rateLimits = new Map(items.map((p) => [p.id, p]));
    this.#onChange(this);
  }

  async #loadAllUsageLimits(): Promise<void> {
    const { items } = await this.#store.usageLimits.list({}, { limit: null, offset: 0 });
    this.#usageLimits = new Map(items.map((p) => [p.id, p]));
    this.#onChange(this);
  }
}

function setOrDelete<T>(map: Map<string, T>, id: string, value: T | null): void {
  if (value === null) map.delete(id);
  else map.set(id, value);
}
