// The provider group a node of a raw config belongs to (config.md "Inheritance"): naming a provider
// or a virtual key starts a group, and the targets below inherit it. The checks that ask what a
// node's provider reads (ignored-fields.ts, forwarded-without-effect.ts) walk the tree with it.

export interface ProviderGroup {
  /** The provider as named in the config; null when known only per request (no provider, a slug, a virtual key). */
  provider: string | null;
  /** The group carries its own api_key. */
  ownKey: boolean;
}

/** The root's parent: no provider yet. */
export const NO_PROVIDER_GROUP: ProviderGroup = Object.freeze({ provider: null, ownKey: false });

/** Naming a provider or a virtual key starts a group: the parent's key and options stay with the parent's provider. */
export function startsProviderGroup(node: Readonly<Record<string, unknown>>): boolean {
  return node.provider !== undefined || node.virtual_key !== undefined;
}

export function providerGroupOf(node: Readonly<Record<string, unknown>>, parent: ProviderGroup): ProviderGroup {
  if (!startsProviderGroup(node)) return node.api_key === undefined ? parent : { ...parent, ownKey: true };
  const named = node.virtual_key === undefined && typeof node.provider === 'string' && !node.provider.startsWith('@') ? node.provider : null;
  return { provider: named, ownKey: node.api_key !== undefined };
}
