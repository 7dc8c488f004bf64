// A stage: one cross-cutting feature of the request path (request log, limits, cache, prompt
// rendering, hooks and guardrails, usage metering). Which stages a route runs is decided when its
// router is built: `prepare` returns null for a node that does not need the stage, and a route no
// stage claims runs the bare router (ARCHITECTURE §4).
import type { PlanNode, RoutePlan } from '../core/plan.ts';
import type { Outcome } from '../router/outcome.ts';
import type { Exchange } from './exchange.ts';
import type { Services } from './services.ts';

export type Phase = 'request' | 'attempt';

/** The rest of the chain: the next stage, and at the end the router (request phase) or the upstream attempt (attempt phase). */
export type Next = (x: Exchange) => Promise<Outcome>;

/**
 * One stage's work for one request (or one attempt). It may answer without calling `next` (a cache
 * hit, a denial, a limit: an Outcome, never an exception), change the exchange before calling it,
 * or wrap the Outcome it gets back (its `response`, so streams are observed as they flow).
 */
export type StageFn = (x: Exchange, next: Next) => Promise<Outcome>;

export interface Stage {
  readonly name: string;
  /** `request`: around the whole router, prepared for the plan's root; `attempt`: around each try of each leaf, prepared per leaf. */
  readonly phase: Phase;
  /** Whether the route must parse the request body for this stage at this node. */
  readsBody?(node: PlanNode, plan: RoutePlan): boolean;
  /** Build time. Null: this node does not need the stage, and it costs nothing here. */
  prepare(node: PlanNode, services: Services, plan: RoutePlan): StageFn | null;
}
