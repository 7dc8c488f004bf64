// Provider names → adapters. `openai` is accepted as a name for the vendor because that is what the
// official SDKs' users type; the canonical name stays `vendor`.
import { GatewayError } from '../server/errors.ts';
import type { ProviderAdapter } from './types.ts';
import { vendorAdapter } from './vendor/index.ts';

export class ProviderRegistry {
  readonly #byName = new Map<string, ProviderAdapter>();

  constructor(adapters: readonly ProviderAdapter[], aliases: Readonly<Record<string, string>> = {}) {
    for (const adapter of adapters) this.#byName.set(adapter.name, adapter);
    for (const [alias, name] of Object.entries(aliases)) {
      const adapter = this.#byName.get(name);
      if (adapter) this.#byName.set(alias, adapter);
    }
  }

  get(name: string): ProviderAdapter {
    const adapter = this.#byName.get(name.toLowerCase());
    if (adapter === undefined) {
      throw new GatewayError('unsupported_provider', `The provider "${name}" is not known to this gateway. Known: ${[...this.#byName.keys()].join(', ')}.`, 'provider');
    }
    return adapter;
  }
}

export function defaultProviders(): ProviderRegistry {
  return new ProviderRegistry([vendorAdapter()], { openai: 'vendor' });
}
