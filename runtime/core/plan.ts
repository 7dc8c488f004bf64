// The plan types the runtime reads, named once for the runtime: a RoutePlan is the compiler's output
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
