// What a target calls when a virtual key or a provider slug names it: the stored integration (its
// provider, credential and options), found in the in-memory key ring. Shared by the transport (per
// call) and by the checks that judge a request's headers against the route (unread-headers.ts).
import { GatewayError } from '../core/errors.ts';
import { VIRTUAL_KEY_HEADER } from '../core/gateway-headers.ts';
import type { PlanLeaf } from '../core/plan.ts';
import type { StoredCredentials, StoredIntegration } from '../providers/stored-credentials.ts';

/** The virtual key a target calls: its own, else the request's (x-gateway-virtual-key) when it names no provider or key. */
export function virtualKeyOf(plan: PlanLeaf, requestKey: string | null): string | null {
  return plan.virtualKey ?? (plan.provider === null && plan.apiKey === null ? requestKey : null);
}

/** The virtual key or provider slug a leaf (or the request) names; null when none; 400 when it is not stored. */
export function storedIntegration(plan: PlanLeaf, requestKey: string | null, credentials: StoredCredentials | null): StoredIntegration | null {
  const slug = plan.provider !== null && plan.provider.startsWith('@') ? plan.provider.slice(1) : null;
  const virtualKey = virtualKeyOf(plan, requestKey);
  if (slug === null && virtualKey === null) return null;
  if (slug !== null) {
    const found = credentials?.slug(slug);
    if (found === undefined) throw new GatewayError('unknown_provider_slug', `No integration "@${slug}" is stored in this gateway.`, 'provider');
    return usable(found, `@${slug}`, 'provider');
  }
  const found = credentials?.virtualKey(virtualKey!);
  if (found === undefined) {
    // A slug given where an ID goes is the likely mistake: say how a slug is named.
    const asSlug = credentials?.slug(virtualKey!) === undefined ? '' : ` "${virtualKey}" is the slug of one: name it as the provider, "@${virtualKey}" (x-gateway-provider or a config's provider).`;
    throw new GatewayError('unknown_virtual_key', `No virtual key has the ID "${virtualKey}" in this gateway.${asSlug}`, plan.virtualKey !== null ? 'virtual_key' : VIRTUAL_KEY_HEADER);
  }
  return usable(found, `virtual key "${virtualKey}"`, plan.virtualKey !== null ? 'virtual_key' : VIRTUAL_KEY_HEADER);
}

/** 400 for a stored integration the provider could not be called with (StoredIntegration.unusable). */
function usable(found: StoredIntegration, named: string, param: string): StoredIntegration {
  if (found.unusable === null) return found;
  throw new GatewayError('invalid_provider_option', `The integration behind ${named} cannot be used: ${found.unusable}. Store a corrected value: PUT /v1/virtual-keys/${found.id}.`, param);
}

/** The provider a target calls: its own, its virtual key's or slug's, else the request's x-gateway-provider; null when none. */
export function providerOfTarget(plan: PlanLeaf, stored: StoredIntegration | null, headerProvider: string | null): string | null {
  return plan.provider !== null && !plan.provider.startsWith('@') ? plan.provider : stored?.provider ?? headerProvider;
}
