// Which providers have a files, batches, fine-tuning or Responses API of the vendor's shape, and so
// whether a route can forward such a request. A route forwards only when every target it may pick
// has the API; otherwise the gateway serves it itself (files kept, batches run, responses emulated)
// or, for fine-tuning, refuses it (docs/jobs.md).
import { PROVIDER_HEADER, VIRTUAL_KEY_HEADER } from '../core/gateway-headers.ts';
import type { IncomingHttpHeaders } from 'node:http';
import type { PlanNode } from '../core/plan.ts';
import type { LoadedRouter } from '../inference/routers.ts';
import { PROVIDER_ALIASES } from '../providers/registry.ts';
import type { StoredCredentials } from '../providers/stored-credentials.ts';

export type ProviderApi = 'files' | 'batches' | 'fine_tuning' | 'responses';

const ALL: readonly ProviderApi[] = ['files', 'batches', 'fine_tuning', 'responses'];

/** As each provider documents its API; providers not listed have none of them. */
export const PROVIDER_APIS: Readonly<Record<string, readonly ProviderApi[]>> = {
  vendor: ALL,
  clouda: ALL,
  groq: ['files', 'batches'],
  mistral: ['files', 'batches', 'fine_tuning'],
  together: ['files', 'batches', 'fine_tuning'],
};

export function providerHasApi(provider: string, api: ProviderApi): boolean {
  const name = provider.toLowerCase();
  const canonical = Object.hasOwn(PROVIDER_ALIASES, name) ? PROVIDER_ALIASES[name] : name;
  return Object.hasOwn(PROVIDER_APIS, canonical) && PROVIDER_APIS[canonical].includes(api);
}

/**
 * The provider of every target the router may pick, as the transport will resolve it (the leaf's
 * provider, its slug or virtual key, else the request's headers); null where that cannot be known.
 */
export function routeProviders(router: LoadedRouter, headers: IncomingHttpHeaders, credentials: StoredCredentials | null): Array<string | null> {
  const found: Array<string | null> = [];
  const header = (name: string): string | null => {
    const value = headers[name];
    return typeof value === 'string' && value !== '' ? value : null;
  };
  const walk = (node: PlanNode): void => {
    if (node.kind === 'strategy') {
      for (const target of node.targets) walk(target);
      return;
    }
    if (node.provider !== null && node.provider.startsWith('@')) found.push(credentials?.slug(node.provider.slice(1))?.provider ?? null);
    else if (node.provider !== null) found.push(node.provider);
    else if (node.virtualKey !== null) found.push(credentials?.virtualKey(node.virtualKey)?.provider ?? null);
    else {
      const virtualKey = node.apiKey === null ? header(VIRTUAL_KEY_HEADER) : null;
      found.push(header(PROVIDER_HEADER) ?? (virtualKey !== null ? credentials?.virtualKey(virtualKey)?.provider ?? null : null));
    }
  };
  walk(router.plan.root);
  return found;
}

/** True when every target the router may pick has the API. */
export function routeHasApi(router: LoadedRouter, headers: IncomingHttpHeaders, credentials: StoredCredentials | null, api: ProviderApi): boolean {
  const providers = routeProviders(router, headers, credentials);
  return providers.length > 0 && providers.every((provider) => provider !== null && providerHasApi(provider, api));
}
