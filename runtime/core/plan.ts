// The plan types the runtime reads, named once for the runtime (and the one walk to a plan's leaves): a RoutePlan is the compiler's output
// (compiler/config/route-plan.ts, plain JSON), and every layer of runtime/ imports it from here.
export type {
  BreakerPlan,
  CachePlan,
  PlanLeaf,
  PlanNode,
  PlanNodeBase,
  PlanStrategy,
  RetryPlan,
  RoutePlan,
} from '../../compiler/config/route-plan.ts';
import type { PlanLeaf, PlanNode } from '../../compiler/config/route-plan.ts';

/** Every target that calls a provider, in order. */
export function leavesOf(root: PlanNode): PlanLeaf[] {
  return root.kind === 'strategy' ? root.targets.flatMap(leavesOf) : [root];
}
