// The most provider calls one request can make through a config, in the worst case: a leaf makes
// 1 + its retry attempts, a fallback adds up its targets (it may try every one), and loadbalance,
// conditional and single strategies make the calls of the one target they pick. Without a bound, an
// inline config of ~800 targets in a 64 KB header made one request call providers 4,800 times, at
// hosts the config names.
import type { PlanLeaf, PlanNode } from './route-plan.ts';
import { type ConfigError, MAX_RETRY_ATTEMPTS } from './errors.ts';
import { isPlainObject } from './query.ts';
import { sameHooks } from './same-hooks.ts';

/** The most provider calls a config may make for one request (ten targets with five retries each is 60). */
export const MAX_CALLS_PER_REQUEST = 200;

/** Worst-case provider calls of `node` for one request; stops counting past MAX_CALLS_PER_REQUEST. */
export function worstCaseCalls(node: PlanNode): number {
  return worstCase(node, tries, MAX_CALLS_PER_REQUEST);
}

/** The tries of a target: 1 + its retry attempts. */
function tries(leaf: PlanLeaf): number {
  return 1 + Math.min(MAX_RETRY_ATTEMPTS, leaf.retry?.attempts ?? 0);
}

/**
 * The most `perLeaf` one request can add up through `node`: a fallback adds up its targets (it may
 * try every one), loadbalance and conditional take their largest, single its first. Stops counting
 * once past `limit`.
 */
function worstCase(node: PlanNode, perLeaf: (leaf: PlanLeaf) => number, limit: number): number {
  if (node.kind === 'leaf') return perLeaf(node);
  if (node.mode === 'single') return node.targets.length === 0 ? 0 : worstCase(node.targets[0]!, perLeaf, limit);
  let total = 0;
  for (const target of node.targets) {
    const count = worstCase(target, perLeaf, limit);
    total = node.mode === 'fallback' ? total + count : Math.max(total, count);
    if (total > limit) return total;
  }
  return total;
}

/**
 * The most calls to hook URLs one request may make through a config, at worst: each webhook and log
 * check POSTs the whole request (and after it the answer) to a URL the config names, so an inline
 * config of six hundred webhook checks would make one 32 MB request send 19 GB; a jwt check fetches its
 * key set again for each request while the fetch fails.
 */
export const MAX_HOOK_CALLS_PER_REQUEST = 100;

/**
 * The checks that may call out for a request they judge: a URL of the config, or (validUrls with
 * onlyDNS) DNS queries for up to 20 hosts the text names.
 */
const CALLING_CHECKS: ReadonlySet<string> = new Set(['default.webhook', 'default.log', 'default.jwt']);

function callsOut(id: string, parameters: unknown): boolean {
  return CALLING_CHECKS.has(id) || (id === 'default.validUrls' && isPlainObject(parameters) && parameters.onlyDNS === true);
}

/**
 * Worst-case hook calls of one request through the config rooted at `root`: the root's before-request
 * hooks and input guardrails once; per try of a target, its own before hooks (when they are not the
 * root's) and its after-request hooks and output guardrails. Strategies add up as for provider calls.
 */
export function worstCaseHookCalls(root: PlanNode): number {
  const perRequest = callingChecks(root.beforeRequestHooks, root.inputGuardrails);
  const perLeaf = (leaf: PlanLeaf): number => {
    const ownBefore = sameHooks(leaf, root, 'before') ? 0 : callingChecks(leaf.beforeRequestHooks, leaf.inputGuardrails);
    return tries(leaf) * (ownBefore + callingChecks(leaf.afterRequestHooks, leaf.outputGuardrails));
  };
  return perRequest + worstCase(root, perLeaf, MAX_HOOK_CALLS_PER_REQUEST - perRequest);
}

/** Calling checks in a phase's hooks (each with `checks`) and guardrails (checks as keys, or a named one's `checks` list). */
function callingChecks(hooks: readonly unknown[], guardrails: readonly unknown[]): number {
  let count = 0;
  const ids = (checks: unknown): void => {
    if (!Array.isArray(checks)) return;
    for (const check of checks) if (isPlainObject(check) && typeof check.id === 'string' && callsOut(check.id, check.parameters)) count++;
  };
  for (const hook of hooks) if (isPlainObject(hook)) ids(hook.checks);
  for (const guardrail of guardrails) {
    if (!isPlainObject(guardrail)) continue;
    if (Array.isArray(guardrail.checks)) ids(guardrail.checks);
    else for (const [key, parameters] of Object.entries(guardrail)) if (callsOut(key, parameters)) count++;
  }
  return count;
}

/** CFG_TOO_MANY_CALLS when one request could call providers or hook URLs more often than allowed, or null. */
export function callBudgetError(root: PlanNode): ConfigError | null {
  if (worstCaseCalls(root) > MAX_CALLS_PER_REQUEST) {
    return {
      code: 'CFG_TOO_MANY_CALLS',
      pointer: '',
      message: `One request could call providers more than ${MAX_CALLS_PER_REQUEST} times through this config, the most allowed: a fallback tries each of its targets in turn, and each target makes 1 + retry.attempts calls.`,
      hint: 'use fewer fallback targets or fewer retries on them; a loadbalance or conditional strategy calls only the target it picks',
    };
  }
  if (worstCaseHookCalls(root) > MAX_HOOK_CALLS_PER_REQUEST) {
    return {
      code: 'CFG_TOO_MANY_CALLS',
      pointer: '',
      message: `One request could call out from its checks more than ${MAX_HOOK_CALLS_PER_REQUEST} times through this config, the most allowed: each webhook and log check posts the request to its URL, a jwt check may fetch its key set and a validUrls check with onlyDNS queries DNS; the root's before-request checks count once, a target's own checks on every try of it.`,
      hint: 'use fewer webhook, log, jwt and onlyDNS checks, put them on the root rather than on every target, or give their targets fewer retries',
    };
  }
  return null;
}
