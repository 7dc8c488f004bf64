// A `forward_headers` entry every target it reaches would overwrite: the adapter of each of those
// targets' providers sets that header itself on every call (compiler/config/adapter-headers.ts), so
// the client's value never reaches a provider. One of the CFG_FIELD_WITHOUT_EFFECT cases
// (ignored-fields.ts). A list that reaches a target whose provider is known only per request (a
// virtual key, a slug, x-gateway-provider) is left alone: that provider may take the header.
import { type AdapterTarget, headersSetByEveryAdapter } from './adapter-headers.ts';
import type { IgnoredField } from './ignored-fields.ts';
import { isPlainObject } from './query.ts';
import { NO_PROVIDER_GROUP, type ProviderGroup, providerGroupOf } from './provider-group.ts';

export function forwardedWithoutEffect(config: unknown): IgnoredField[] {
  const found: IgnoredField[] = [];
  const walk = (node: unknown, at: string, parent: ProviderGroup): void => {
    if (!isPlainObject(node)) return;
    const group = providerGroupOf(node, parent);
    const list = node.forward_headers;
    if (Array.isArray(list)) {
      const overwritten = setOnEveryLeaf(node, group);
      list.forEach((name, index) => {
        if (typeof name === 'string' && overwritten.has(name.toLowerCase())) {
          found.push({ pointer: `${at}/forward_headers/${index}`, message: `Every target this list reaches sets "${name.toLowerCase()}" itself (its provider's adapter does, on every call), so the client's value would never reach a provider.` });
        }
      });
    }
    if (Array.isArray(node.targets)) node.targets.forEach((target, i) => walk(target, `${at}/targets/${i}`, group));
  };
  walk(config, '', NO_PROVIDER_GROUP);
  return found;
}

/** The headers set by the adapter of every leaf under `node` that inherits its forward_headers (none when one is not known). */
function setOnEveryLeaf(node: Record<string, unknown>, group: ProviderGroup): ReadonlySet<string> {
  const leaves: AdapterTarget[] = [];
  const visit = (at: Record<string, unknown>, atGroup: ProviderGroup): boolean => {
    if (Array.isArray(at.targets) && at.targets.length > 0) {
      // A target with a list of its own is not reached by this one.
      return at.targets.every((child) => !isPlainObject(child) || Array.isArray(child.forward_headers) || visit(child, providerGroupOf(child, atGroup)));
    }
    if (atGroup.provider === null) return false;
    leaves.push({ provider: atGroup.provider, ownKey: atGroup.ownKey });
    return true;
  };
  return new Set(visit(node, group) ? headersSetByEveryAdapter(leaves) : []);
}
