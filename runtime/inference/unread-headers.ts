// Headers no target of a route would read, judged where a virtual key or slug names a target's
// provider, so its provider and options are known only per request (where every target names its own,
// runtime/pipeline/options.ts judges them when the route is built). A header without effect is 400
// `invalid_header`: x-gateway-custom-host where every target has a host of its own (its config's or
// its key's), a provider-option header no target reads (runtime/providers/header-options.ts). A target
// whose key is not stored, or whose provider is not known, leaves the verdict to its own call.
import { providerEntry } from '../../compiler/config/providers.ts';
import { GatewayError } from '../core/errors.ts';
import { CUSTOM_HOST_HEADER } from '../core/gateway-headers.ts';
import { hasKeys } from '../core/has-keys.ts';
import { leavesOf, type PlanNode } from '../core/plan.ts';
import type { GatewayOptions } from '../pipeline/exchange.ts';
import { type OptionReader, refuseUnreadOptionHeaders } from '../providers/header-options.ts';
import type { StoredCredentials, StoredIntegration } from '../providers/stored-credentials.ts';
import { providerOfTarget, storedIntegration } from './stored-target.ts';

/** 400 for the first judged header no target of the route reads (asked when GatewayOptions.headersJudgedPerCall). */
export function refuseUnreadHeaders(root: PlanNode, options: GatewayOptions, credentials: StoredCredentials | null): void {
  const wantsHost = options.customHost !== null;
  let hostRead = false;
  // Only a stored host is new here: a route built from the provider headers carries the header's host
  // in its plan, and a config's own hosts were judged with the route.
  let keyedHost = false;
  const readers: OptionReader[] | null = hasKeys(options.providerOptions) ? [] : null;
  let judgeOptions = readers !== null;
  for (const leaf of leavesOf(root)) {
    let stored: StoredIntegration | null;
    try {
      stored = storedIntegration(leaf, options.virtualKey, credentials);
    } catch {
      return; // not stored: its own call answers for that
    }
    const storedHost = typeof stored?.options.custom_host === 'string';
    keyedHost ||= storedHost;
    if (leaf.customHost === null && !storedHost) hostRead = true;
    if (!judgeOptions) continue;
    const family = providerEntry(providerOfTarget(leaf, stored, options.provider) ?? '')?.family;
    if (family === undefined) judgeOptions = false;
    else readers!.push({ family, own: stored === null ? leaf.providerOptions : { ...stored.options, ...leaf.providerOptions }, customHost: leaf.customHost !== null || storedHost || options.customHost !== null });
  }
  if (wantsHost && keyedHost && !hostRead) {
    throw new GatewayError('invalid_header', `${CUSTOM_HOST_HEADER} would have no effect: every target of this route has a custom host of its own (its config's, or its virtual key's).`, CUSTOM_HOST_HEADER);
  }
  if (judgeOptions) refuseUnreadOptionHeaders(options.providerOptions, readers!);
}
