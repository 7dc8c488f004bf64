// CFG_FIELD_WITHOUT_EFFECT (a compile warning): a field that only one kind of strategy reads, set
// where no such strategy reads it. `conditions` and `default` belong to a conditional strategy,
// `strategy.on_status_codes` and a target's own `on_status_codes` to a fallback, and `weight` to the
// targets of a loadbalance. Elsewhere the router never looks at them, so a config that sets one
// most likely means another mode, or the field on another node. A warning, not an error: configs
// saved before this check keep loading.
import { isPlainObject } from './query.ts';

export const FIELD_WITHOUT_EFFECT = 'CFG_FIELD_WITHOUT_EFFECT';

export interface IgnoredField {
  pointer: string;
  message: string;
}

/** Every such field of the config's target tree, with why it has no effect there. */
export function ignoredFields(config: unknown): IgnoredField[] {
  const found: IgnoredField[] = [];
  const walk = (node: unknown, at: string, parentMode: string | null): void => {
    if (!isPlainObject(node)) return;
    const strategy = isPlainObject(node.strategy) ? node.strategy : null;
    const mode = typeof strategy?.mode === 'string' ? strategy.mode : null;
    if (strategy !== null && mode !== null) {
      for (const key of ['conditions', 'default'] as const) {
        if (mode !== 'conditional' && strategy[key] !== undefined) found.push({ pointer: `${at}/strategy/${key}`, message: `Only a conditional strategy reads "${key}"; this one is ${mode}.` });
      }
      if (mode !== 'fallback' && strategy.on_status_codes !== undefined) found.push({ pointer: `${at}/strategy/on_status_codes`, message: `Only a fallback strategy reads "on_status_codes" (statuses that move on to the next target); this one is ${mode}. Retries on statuses are "retry.on_status_codes".` });
    }
    const role = parentMode === null ? 'the config itself, not a target of a strategy' : `a target of a ${parentMode} strategy`;
    if (node.weight !== undefined && parentMode !== 'loadbalance') found.push({ pointer: `${at}/weight`, message: `Only a loadbalance strategy reads its targets' "weight"; this is ${role}.` });
    if (node.on_status_codes !== undefined && parentMode !== 'fallback') found.push({ pointer: `${at}/on_status_codes`, message: `Only a fallback strategy reads its targets' "on_status_codes"; this is ${role}.` });
    if (Array.isArray(node.targets)) node.targets.forEach((target, i) => walk(target, `${at}/targets/${i}`, mode));
  };
  walk(config, '', null);
  return found;
}
