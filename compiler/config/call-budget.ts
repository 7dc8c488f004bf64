// The most provider calls one request can make through a config, in the worst case: a leaf makes
// 1 + its retry attempts, a fallback adds up its targets (it may try every one), and loadbalance,
// conditional and single strategies make the calls of the one target they pick. Without a bound, an
// inline config of ~800 targets in a 64 KB header made one request call providers 4,800 times, at
// hosts the config names.
import type { PlanNode } from './route-plan.ts';
import { MAX_RETRY_ATTEMPTS } from './errors.ts';

/** The most provider calls a config may make for one request (ten targets with five retries each is 60). */
export const MAX_CALLS_PER_REQUEST = 200;

/** Worst-case provider calls of `node` for one request; stops counting past MAX_CALLS_PER_REQUEST. */
export function worstCaseCalls(node: PlanNode): number {
  if (node.kind === 'leaf') return 1 + Math.min(MAX_RETRY_ATTEMPTS, node.retry?.attempts ?? 0);
  if (node.mode === 'single') return node.targets.length === 0 ? 0 : worstCaseCalls(node.targets[0]!);
  let total = 0;
  for (const target of node.targets) {
    const calls = worstCaseCalls(target);
    total = node.mode === 'fallback' ? total + calls : Math.max(total, calls);
    if (total > MAX_CALLS_PER_REQUEST) return total;
  }
  return total;
}
