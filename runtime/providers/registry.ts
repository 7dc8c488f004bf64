// Provider names → adapters. `openai` is accepted as a name for the vendor because that is what the
// official SDKs' users type; the canonical name stays `vendor`. Names are case-insensitive.
import { GatewayError } from '../core/errors.ts';
import { anthropicAdapter } from './anthropic/index.ts';
import { cloudaAdapter } from './clouda/index.ts';
import { cloudbAdapter } from './cloudb/index.ts';
import { cloudcAdapter } from './cloudc/index.ts';
import { compatibleAdapters } from './compatible/index.ts';
import type { HostPolicy } from './host-policy.ts';
import type { ProviderAdapter } from './types.ts';
import { PROVIDER_ALIASES } from '../../compiler/config/providers.ts';
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
      throw new GatewayError('unsupported_provider', `The provider "${name}" is not known to this gateway. Known: ${this.names().join(', ')}.`, 'provider');
    }
    return adapter;
  }

  has(name: string): boolean {
    return this.#byName.has(name.toLowerCase());
  }

  names(): string[] {
    return [...this.#byName.keys()].sort();
  }
}

/** Alternative names users type for the same families (schema/providers.json). */
export { PROVIDER_ALIASES };

export interface DefaultProviderOptions {
  /** Checks URLs that come from configs rather than from the gateway (cloudb's token_uri). */
  hostPolicy?: HostPolicy;
}

export function defaultProviders(options: DefaultProviderOptions = {}): ProviderRegistry {
  return new ProviderRegistry(
    [vendorAdapter(), anthropicAdapter(), cloudaAdapter(), cloudbAdapter({ hostPolicy: options.hostPolicy }), cloudcAdapter(), ...compatibleAdapters()],
    PROVIDER_ALIASES,
  );
}
