// The providers the gateway knows, from schema/providers.json: the one list the compiler (an unknown
// provider name is a compile error) and the runtime's registry (adapters, aliases, compatible
// providers' base URLs) both read, with the provider options (config fields, virtual-key fields, headers).
import manifest from '../../schema/providers.json' with { type: 'json' };
import type { ProviderManifest } from '../../generated/types.ts';

export type ProviderEntry = ProviderManifest['providers'][number];
export type ProviderOption = ProviderManifest['options'][number];

/** The provider options, in manifest order: what a leaf's plan carries, a virtual key holds and a header may set. */
export const PROVIDER_OPTIONS: readonly ProviderOption[] = (manifest as ProviderManifest).options;

export const PROVIDERS: readonly ProviderEntry[] = (manifest as ProviderManifest).providers;

/** The options a request header may carry, by header name (x-gateway-clouda-api-version → its option). */
export const HEADER_PROVIDER_OPTIONS: ReadonlyMap<string, ProviderOption> = new Map(PROVIDER_OPTIONS.flatMap((option) => (option.header === undefined ? [] : [[option.header, option] as const])));

/** Option → the adapter family that reads it (its adapter alone): beside a provider of another family it has no effect. */
export const OPTION_FAMILY: ReadonlyMap<string, string> = new Map(PROVIDER_OPTIONS.map((option) => [option.key, option.family]));

/** The family that reads `key` when it is a provider option of another family than `family` (so it would have no effect there); null otherwise. */
export function otherFamilyReading(key: string, family: string): string | null {
  const reader = OPTION_FAMILY.get(key);
  return reader !== undefined && reader !== family ? reader : null;
}

/** The first of `options` that only another family than `provider`'s reads, with that family; null when none (or the provider is unknown). */
export function optionOfOtherFamily(options: Readonly<Record<string, unknown>>, provider: string): { key: string; family: string } | null {
  const family = providerEntry(provider)?.family;
  if (family === undefined) return null;
  for (const key in options) {
    const reader = otherFamilyReading(key, family);
    if (reader !== null) return { key, family: reader };
  }
  return null;
}

/** Alias → canonical name. */
export const PROVIDER_ALIASES: Readonly<Record<string, string>> = Object.fromEntries(PROVIDERS.flatMap((p) => (p.aliases ?? []).map((alias) => [alias, p.name])));

/** Every name a config may give `provider` (canonical names and aliases, lower case; compared case-insensitively). */
export const PROVIDER_NAMES: readonly string[] = PROVIDERS.flatMap((p) => [p.name, ...(p.aliases ?? [])]).sort();

/** A provider's typed endpoints (schema/providers.json); every provider also passes other /v1 paths through. */
export type ProviderEndpoint = ProviderEntry['endpoints'][number];

const BY_NAME: ReadonlyMap<string, ProviderEntry> = new Map(PROVIDERS.flatMap((p) => [p.name, ...(p.aliases ?? [])].map((name) => [name, p] as const)));

/** The manifest entry of a provider name or alias (case-insensitive), or undefined. */
export function providerEntry(name: string): ProviderEntry | undefined {
  return BY_NAME.get(name.toLowerCase());
}

/**
 * The canonical name of a provider name or alias (`OpenAI` → `vendor`): what x-gateway-provider
 * echoes, records and metrics carry and limit policies match, however a config, a header or a
 * virtual key spelt it. A name the manifest does not know (a `@slug`, a mistake refused elsewhere) is
 * returned as given.
 */
export function canonicalProvider(name: string): string {
  return BY_NAME.get(name.toLowerCase())?.name ?? name;
}
