// The response-cache key (ARCHITECTURE §5 "Cache"): the endpoint, who may share the entry (the
// caller's workspace), which route or target answers (a hash of its plan node, fixed when the router
// is built, plus the routing and provider-option headers that pick a provider and what it runs: a
// deployment, a region), the request body as the provider gets it
// (canonical JSON: key order and whitespace never change the key), and the request's metadata, or
// instead the x-gateway-cache-namespace when one is given.
import { hash } from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json.ts';
import { hasKeys } from '../../core/has-keys.ts';
import type { PlanNode } from '../../core/plan.ts';
import type { Exchange } from '../exchange.ts';

/** Bumped when the key's layout or the stored form changes: old entries then simply miss. */
const KEY_VERSION = 'v2';

/** What fixes the answer's source: the node's whole effective plan (targets, overrides, credentials by hash only). */
export function scopeOfNode(configId: string, node: PlanNode): string {
  return hash('sha256', `${configId}\n${JSON.stringify(node)}`, 'hex');
}

/** `params`: the body the key is built from (default the parsed body; the semantic scope passes the body without its text). */
export function cacheKey(x: Exchange, scope: string, params: unknown = x.params): string {
  const options = x.options;
  const head = JSON.stringify([
    KEY_VERSION,
    x.caller?.workspaceId ?? '',
    x.endpoint,
    scope,
    options.provider,
    options.customHost,
    options.virtualKey,
    options.cacheNamespace === null ? null : options.cacheNamespace,
  ]);
  // Most requests send no provider-option header: nothing to add for them.
  const providerOptions = hasKeys(options.providerOptions) ? canonicalJson(options.providerOptions) : '';
  // The namespace replaces the metadata; the body comes last, so no part can run into another.
  const metadata = options.cacheNamespace === null ? canonicalJson(options.metadata) : '';
  return hash('sha256', `${head}\n${providerOptions}\n${metadata}\n${canonicalJson(params)}`, 'hex');
}

