// CFG_BREAKER_NEVER_SKIPS (a compile warning): a circuit breaker acts only where a fallback or
// loadbalance strategy chooses among two or more targets, by skipping the open ones (a single
// strategy takes its one target, a conditional one takes what its condition names, and a target
// with no choice above it is tried whatever its circuit says). A `cb_config` whose targets no such
// strategy chooses among counts failures that change nothing but `gateway_circuit_state`: most
// likely a breaker set on the wrong node. A warning, not an error: the gauge still reports.
import { isPlainObject } from './query.ts';

export const BREAKER_NEVER_SKIPS = 'CFG_BREAKER_NEVER_SKIPS';

export const BREAKER_NEVER_SKIPS_MESSAGE =
  'No fallback or loadbalance strategy chooses among the targets this circuit breaker covers, so an open circuit never skips one (it only shows in gateway_circuit_state).';

/** The pointers of the `cb_config`s none of whose leaves has a choosing strategy above it. */
export function idleBreakerPointers(config: unknown): string[] {
  const declared: Array<{ pointer: string; acts: boolean }> = [];
  const walk = (node: unknown, at: string, chosen: boolean, breaker: { acts: boolean } | null): void => {
    if (!isPlainObject(node)) return;
    let current = breaker;
    if (isPlainObject(node.cb_config)) {
      const own = { pointer: `${at}/cb_config`, acts: false };
      declared.push(own);
      current = own;
    }
    const targets = Array.isArray(node.targets) ? node.targets : [];
    if (targets.length === 0) {
      // A leaf: its breaker (its own or inherited) acts when some strategy above chooses among targets.
      if (current !== null && chosen) current.acts = true;
      return;
    }
    const mode = isPlainObject(node.strategy) ? node.strategy.mode : undefined;
    const chooses = (mode === 'fallback' || mode === 'loadbalance') && targets.length >= 2;
    targets.forEach((target, i) => walk(target, `${at}/targets/${i}`, chosen || chooses, current));
  };
  walk(config, '', false, null);
  return declared.filter((d) => !d.acts).map((d) => d.pointer);
}
