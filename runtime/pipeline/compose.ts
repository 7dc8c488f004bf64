// Composes the chain of stages for one router, once, when the router is built: the request phase
// around the router, the attempt phase around each leaf's try. A node no stage claims gets the
// inner function itself: no wrapper, no cost.
import type { PlanLeaf, PlanNode, RoutePlan } from '../core/plan.ts';
import type { Outcome } from '../router/outcome.ts';
import type { Exchange } from './exchange.ts';
import type { Services } from './services.ts';
import type { Next, Stage, StageFn } from './stage.ts';

/** Wraps `inner` in the stage functions, the first one outermost. */
export function chain(fns: readonly StageFn[], inner: Next): Next {
  let next = inner;
  for (let i = fns.length - 1; i >= 0; i--) {
    const fn = fns[i];
    const after = next;
    next = (x: Exchange): Promise<Outcome> => fn(x, after);
  }
  return next;
}

/** The request-phase stage functions this plan needs, outermost first. */
export function requestStages(stages: readonly Stage[], plan: RoutePlan, services: Services): StageFn[] {
  return prepared(stages, 'request', plan.root, plan, services);
}

/** The attempt-phase stage functions one leaf needs, outermost first (empty: the bare attempt). */
export function attemptStages(stages: readonly Stage[], leaf: PlanLeaf, plan: RoutePlan, services: Services): StageFn[] {
  return prepared(stages, 'attempt', leaf, plan, services);
}

/** Whether any stage makes the route parse the request body. */
export function stagesReadBody(stages: readonly Stage[], plan: RoutePlan): boolean {
  const nodes = allNodes(plan.root);
  return stages.some((stage) => stage.readsBody !== undefined && nodes.some((node) => stage.readsBody!(node, plan)));
}

function prepared(stages: readonly Stage[], phase: Stage['phase'], node: PlanNode, plan: RoutePlan, services: Services): StageFn[] {
  const fns: StageFn[] = [];
  for (const stage of stages) {
    if (stage.phase !== phase) continue;
    const fn = stage.prepare(node, services, plan);
    if (fn !== null) fns.push(fn);
  }
  return fns;
}

function allNodes(node: PlanNode): PlanNode[] {
  return node.kind === 'leaf' ? [node] : [node, ...node.targets.flatMap(allNodes)];
}
