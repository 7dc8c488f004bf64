// The headers a provider's adapter sets on every call, over any client header of the same name that a
// config's `forward_headers` or x-gateway-forward-headers forwards: the credential (its own or the
// target's key) and the messages API's version. Forwarding one of them to such a provider has no
// effect, so a config doing it is warned (refused where nothing reviews it) and the request header
// is a 400. Headers an adapter sets only on some calls (a translated chat's content-type, the
// signing headers of cloud C) are not listed: forwarding them reaches the provider on the others.
// test/providers/adapter-headers.test.ts holds this list to the adapters.
import { providerEntry, type ProviderEntry } from './providers.ts';

const BY_FAMILY: Readonly<Record<ProviderEntry['family'], readonly string[]>> = {
  vendor: ['authorization'],
  compatible: ['authorization'],
  messages: ['x-api-key', 'anthropic-version'],
  // An api-key header or a Bearer token, by the key's shape: neither is set on every call.
  clouda: [],
  cloudb: ['authorization'],
  cloudc: ['authorization'],
};

const NONE: readonly string[] = [];

/**
 * The headers the adapter of `provider` sets on every call of a target; `ownKey`: the target carries
 * an api_key. A provider that runs without a key (a local server) sets `authorization` only from one,
 * so a forwarded `Authorization: Basic …` reaches it. Unknown provider names set nothing known.
 */
export function headersSetByAdapter(provider: string, ownKey: boolean): readonly string[] {
  const entry = providerEntry(provider);
  if (entry === undefined) return NONE;
  if (entry.family === 'compatible' && entry.key_required === false && !ownKey) return NONE;
  return BY_FAMILY[entry.family];
}

/** A target as far as its adapter's headers go: its provider's name and whether it carries an api_key. */
export interface AdapterTarget {
  provider: string;
  ownKey: boolean;
}

/** The headers the adapter of every one of `targets` sets on every call (none for no targets). */
export function headersSetByEveryAdapter(targets: readonly AdapterTarget[]): readonly string[] {
  if (targets.length === 0) return NONE;
  const sets = targets.map((target) => headersSetByAdapter(target.provider, target.ownKey));
  return sets[0]!.filter((name) => sets.every((set) => set.includes(name)));
}
