// Whether a route's hooks judge or rewrite text. Such a route must see the text of every request it
// serves: the provider's own Responses and Batch APIs take requests the checks cannot read (a
// Responses input is judged as a chat's only once it is emulated as one; a forwarded batch's lines
// never pass through the route at all), so the gateway emulates or runs those itself on such a route
// (runtime/api/responses, runtime/api/batches). Hooks that read only what is around the text
// (modelWhitelist, jwt, requiredMetadataKeys, allowedRequestTypes, a webhook, log) leave them forwarded.
import type { PlanNode } from '../../core/plan.ts';
import { BUILT_IN_CHECKS } from './check-registry.ts';
import { hookSpecs } from './hook-spec.ts';

/** Plans are built once and kept: the walk is made once per plan. */
const judged = new WeakMap<PlanNode, boolean>();

export function routeJudgesText(root: PlanNode): boolean {
  let known = judged.get(root);
  if (known === undefined) {
    known = judgesText(root);
    judged.set(root, known);
  }
  return known;
}

function judgesText(node: PlanNode): boolean {
  for (const phase of ['before', 'after'] as const) {
    for (const spec of hookSpecs(node, phase)) {
      for (const check of spec.checks) {
        const definition = BUILT_IN_CHECKS[check.id];
        if (definition === undefined || definition.kind === 'transform' || definition.readsText) return true;
      }
    }
  }
  return node.kind === 'strategy' && node.targets.some(judgesText);
}
