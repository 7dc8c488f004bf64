// What a config change does to routing (`gateway diff`): the two plans explained (compiler/config/
// explain.ts) and compared node by node, by path. A node only in one is added or removed; a node in
// both shows the lines of its explanation that changed: provider, host, key (redacted or by
// reference, never a value), strategy, shares, fallback order, conditions, retries, timeouts,
// breakers, caches, hooks.
import { explainPlan, type ExplainedNode } from './explain.ts';
import type { RoutePlan } from './route-plan.ts';

export interface NodeChange {
  path: string;
  change: 'added' | 'removed' | 'changed';
  removed: string[];
  added: string[];
}

export function diffPlans(before: RoutePlan, after: RoutePlan): NodeChange[] {
  const old = flatten(explainPlan(before));
  const now = flatten(explainPlan(after));
  const changes: NodeChange[] = [];
  for (const [path, node] of old) {
    const next = now.get(path);
    if (next === undefined) {
      changes.push({ path, change: 'removed', removed: lines(node), added: [] });
      continue;
    }
    const was = lines(node);
    const is = lines(next);
    const removed = was.filter((line) => !is.includes(line));
    const added = is.filter((line) => !was.includes(line));
    if (removed.length + added.length > 0) changes.push({ path, change: 'changed', removed, added });
  }
  for (const [path, node] of now) if (!old.has(path)) changes.push({ path, change: 'added', removed: [], added: lines(node) });
  return changes;
}

function lines(node: ExplainedNode): string[] {
  return [`${node.name === null ? '' : `"${node.name}": `}${node.summary}`, ...node.details, ...(node.picks ?? [])];
}

function flatten(node: ExplainedNode, into = new Map<string, ExplainedNode>()): Map<string, ExplainedNode> {
  into.set(node.path, node);
  for (const child of node.targets ?? []) flatten(child, into);
  return into;
}
