// Whether two plan nodes run the same hooks in a phase: a target that inherited its root's lists
// holds the same arrays, and one that spelled the same lists out holds equal ones. Asked for every
// target of a route, by the call budget when a config is checked and by the hook stage when its
// router is built, so each list's JSON is made once.
import type { PlanNodeBase } from './route-plan.ts';

export function sameHooks(a: PlanNodeBase, b: PlanNodeBase, phase: 'before' | 'after'): boolean {
  return phase === 'before'
    ? sameList(a.beforeRequestHooks, b.beforeRequestHooks) && sameList(a.inputGuardrails, b.inputGuardrails)
    : sameList(a.afterRequestHooks, b.afterRequestHooks) && sameList(a.outputGuardrails, b.outputGuardrails);
}

const listText = new WeakMap<readonly unknown[], string>();

function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a === b || textOf(a) === textOf(b);
}

function textOf(list: readonly unknown[]): string {
  let text = listText.get(list);
  if (text === undefined) {
    text = JSON.stringify(list);
    listText.set(list, text);
  }
  return text;
}
