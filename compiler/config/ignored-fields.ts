// CFG_FIELD_WITHOUT_EFFECT (a compile warning): a field that only one kind of strategy reads, set
// where no such strategy reads it. `conditions` and `default` belong to a conditional strategy,
// `strategy.on_status_codes` and a target's own `on_status_codes` to a fallback, and `weight` to the
// targets of a loadbalance. Elsewhere the router never looks at them, so a config that sets one
// most likely means another mode, or the field on another node. The same for a provider option
// (schema/providers.json: `clouda_*`, `cloudb_*`, `cloudc_*`, `vendor_*`) whose provider group's
// provider is of another family: its adapter never reads it; and the rest of a `retry` whose
// `attempts` is 0; a target no request can reach (after the first of a `single` strategy, or one no
// condition and not the default of a `conditional` strategy names); the `on_status_codes` of the last
// target of a fallback (nothing follows it), and a fallback's own when every target but the last has
// its own; a `forward_headers` entry every target it reaches sets itself
// (forwarded-without-effect.ts); and a cloud option its targets never read beside the others: cloud A's
// by the kind of endpoint, an `api_key` beside cloud B's or C's own credentials (unread-options.ts). A warning, not an error: configs saved before this check keep loading.
import { unreadOptionFields } from './unread-options.ts';
import { forwardedWithoutEffect } from './forwarded-without-effect.ts';
import { otherFamilyReading, providerEntry } from './providers.ts';
import { isPlainObject } from './query.ts';
import { NO_PROVIDER_GROUP, type ProviderGroup, providerGroupOf } from './provider-group.ts';

export const FIELD_WITHOUT_EFFECT = 'CFG_FIELD_WITHOUT_EFFECT';

export interface IgnoredField {
  pointer: string;
  message: string;
}

/** Every such field of the config's target tree, with why it has no effect there. */
export function ignoredFields(config: unknown): IgnoredField[] {
  const found: IgnoredField[] = [];
  const walk = (node: unknown, at: string, parentMode: string | null, parentGroup: ProviderGroup): void => {
    if (!isPlainObject(node)) return;
    // Null when the provider is known only per request, or unknown (an error of its own).
    const group = providerGroupOf(node, parentGroup);
    const provider = group.provider;
    const family = provider === null ? undefined : providerEntry(provider)?.family;
    if (family !== undefined) {
      for (const key in node) {
        const reader = otherFamilyReading(key, family);
        if (reader !== null) found.push({ pointer: `${at}/${key}`, message: `Only ${reader} providers read "${key}"; this node's provider, "${provider}", is of the ${family} family.` });
      }
    }
    const strategy = isPlainObject(node.strategy) ? node.strategy : null;
    const mode = typeof strategy?.mode === 'string' ? strategy.mode : null;
    if (strategy !== null && mode !== null) {
      for (const key of ['conditions', 'default'] as const) {
        if (mode !== 'conditional' && strategy[key] !== undefined) found.push({ pointer: `${at}/strategy/${key}`, message: `Only a conditional strategy reads "${key}"; this one is ${mode}.` });
      }
      if (mode !== 'fallback' && strategy.on_status_codes !== undefined) found.push({ pointer: `${at}/strategy/on_status_codes`, message: `Only a fallback strategy reads "on_status_codes" (statuses that move on to the next target); this one is ${mode}. Retries on statuses are "retry.on_status_codes".` });
      if (Array.isArray(node.targets)) {
        found.push(...unusedTargets(mode, strategy, node.targets, at));
        // The last target of a fallback has no next one to move on to.
        const last = node.targets.length - 1;
        if (mode === 'fallback' && last >= 1 && isPlainObject(node.targets[last]) && node.targets[last].on_status_codes !== undefined) {
          found.push({ pointer: `${at}/targets/${last}/on_status_codes`, message: 'This is the last target of its fallback: no target follows it, so its "on_status_codes" (statuses that move on to the next target) are never read.' });
        }
        // The strategy's list stands in for targets without their own, the last one aside.
        if (mode === 'fallback' && strategy.on_status_codes !== undefined && node.targets.slice(0, -1).every((target) => isPlainObject(target) && target.on_status_codes !== undefined)) {
          const why = last < 1 ? 'it has one target, and nothing follows the last one' : 'every target but the last has its own, and nothing follows the last one';
          found.push({ pointer: `${at}/strategy/on_status_codes`, message: `This fallback's "on_status_codes" are never read: ${why}.` });
        }
      }
    }
    // Retries switched off (`attempts: 0`) read nothing else of `retry`.
    const retry = isPlainObject(node.retry) ? node.retry : null;
    if (retry !== null && retry.attempts === 0) {
      for (const key of ['on_status_codes', 'use_retry_after_headers'] as const) {
        if (retry[key] !== undefined) found.push({ pointer: `${at}/retry/${key}`, message: `"retry.attempts" is 0, so no retry happens and "${key}" is never read.` });
      }
    }
    const role = parentMode === null ? 'the config itself, not a target of a strategy' : `a target of a ${parentMode} strategy`;
    if (node.weight !== undefined && parentMode !== 'loadbalance') found.push({ pointer: `${at}/weight`, message: `Only a loadbalance strategy reads its targets' "weight"; this is ${role}.` });
    if (node.on_status_codes !== undefined && parentMode !== 'fallback') found.push({ pointer: `${at}/on_status_codes`, message: `Only a fallback strategy reads its targets' "on_status_codes"; this is ${role}.` });
    if (Array.isArray(node.targets)) node.targets.forEach((target, i) => walk(target, `${at}/targets/${i}`, mode, group));
  };
  walk(config, '', null, NO_PROVIDER_GROUP);
  return found.concat(forwardedWithoutEffect(config), unreadOptionFields(config));
}

/** Targets of a strategy that no request can reach: a single strategy uses its first, a conditional one those its rules and default name. */
function unusedTargets(mode: string, strategy: Record<string, unknown>, targets: unknown[], at: string): IgnoredField[] {
  if (mode === 'single') {
    return targets.slice(1).map((_, i) => ({ pointer: `${at}/targets/${i + 1}`, message: 'A single strategy sends every request to its first target; this one is never used.' }));
  }
  if (mode !== 'conditional') return [];
  const named = new Set<unknown>([strategy.default]);
  if (Array.isArray(strategy.conditions)) for (const condition of strategy.conditions) if (isPlainObject(condition)) named.add(condition.then);
  return targets.flatMap((target, i) => {
    const name = isPlainObject(target) ? target.name : undefined;
    if (named.has(name) && name !== undefined) return [];
    const which = typeof name === 'string' ? `"${name}"` : 'this target (it has no name)';
    return [{ pointer: `${at}/targets/${i}`, message: `No condition's "then" and not the "default" names ${which}, so no request reaches it.` }];
  });
}
