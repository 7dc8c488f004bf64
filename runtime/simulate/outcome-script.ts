// What a simulated upstream answers: per target, the outcome of each try in order (past the end the
// last one repeats; a target given nothing answers 200). Targets are named by their path
// (`config.targets[0]`) or, when unique, by their `name`. The CLI spells an outcome as text
// (`503`, `429:2` for a status with retry-after seconds, `timeout`, `unreachable`); the API as JSON
// (`503`, `"timeout"`, `{"status": 429, "retry_after": 2}`). Both are checked against the plan here.
import { didYouMean } from '../../compiler/config/suggest.ts';
import { leavesOf, type PlanNode, type RoutePlan } from '../core/plan.ts';
import { GatewayError } from '../core/errors.ts';

export type ScriptedOutcome =
  | { kind: 'status'; status: number; retryAfterSeconds: number | null }
  /** No answer within the attempt's timeout: 408 request_timeout, as a real timeout. */
  | { kind: 'timeout' }
  /** The connection failed: 502 provider_unreachable, as a real refused connection. */
  | { kind: 'unreachable' };

/** Leaf path → the outcome of each try. */
export type OutcomeScript = ReadonlyMap<string, readonly ScriptedOutcome[]>;

/** What a client may send for one try in the API's JSON. */
export type OutcomeJson = number | 'timeout' | 'unreachable' | { status: number; retry_after?: number };

const OK: ScriptedOutcome = { kind: 'status', status: 200, retryAfterSeconds: null };

/** The outcome of try number `attempt` (0-based) of a leaf. */
export function scriptedOutcome(script: OutcomeScript, path: string, attempt: number): ScriptedOutcome {
  const list = script.get(path);
  if (list === undefined || list.length === 0) return OK;
  return list[Math.min(attempt, list.length - 1)];
}

/** `TARGET=OUTCOME[,OUTCOME…]` as the CLI's --fail takes it. */
export function parseOutcomeFlag(text: string): { target: string; outcomes: ScriptedOutcome[] } {
  const split = text.lastIndexOf('=');
  if (split <= 0 || split === text.length - 1) throw invalid(`--fail ${JSON.stringify(text)} is not TARGET=OUTCOME[,OUTCOME…] (e.g. 'config.targets[0]=503,200').`, 'fail');
  const target = text.slice(0, split).trim();
  const outcomes = text.slice(split + 1).split(',').map((part) => parseOutcomeText(part.trim()));
  return { target, outcomes };
}

function parseOutcomeText(text: string): ScriptedOutcome {
  if (text === 'timeout' || text === 'unreachable') return { kind: text };
  const match = /^(\d{3})(?::(\d+(?:\.\d+)?))?$/.exec(text);
  if (match === null) throw invalid(`${JSON.stringify(text)} is not an outcome: use a status (503), a status with retry-after seconds (429:2), timeout or unreachable.`, 'fail');
  return statusOutcome(Number(match[1]), match[2] === undefined ? null : Number(match[2]), 'fail');
}

/** One try as the API's JSON gives it; `param` locates it in the request. */
export function outcomeFromJson(value: unknown, param: string): ScriptedOutcome {
  if (value === 'timeout' || value === 'unreachable') return { kind: value };
  if (typeof value === 'number') return statusOutcome(value, null, param);
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { status, retry_after: retryAfter } = value as { status?: unknown; retry_after?: unknown };
    if (typeof status === 'number' && (retryAfter === undefined || (typeof retryAfter === 'number' && retryAfter >= 0))) return statusOutcome(status, retryAfter ?? null, param);
  }
  throw invalid('An outcome is a status (503), {"status": 429, "retry_after": 2}, "timeout" or "unreachable".', param);
}

function statusOutcome(status: number, retryAfterSeconds: number | null, param: string): ScriptedOutcome {
  if (!Number.isInteger(status) || status < 200 || status > 599) throw invalid(`${status} is not an HTTP status a provider answers with (200–599).`, param);
  return { kind: 'status', status, retryAfterSeconds };
}

/** Resolves target names to leaf paths: every key must name exactly one leaf of the plan. */
export function resolveTargets(plan: RoutePlan, byTarget: ReadonlyArray<readonly [string, readonly ScriptedOutcome[]]>, param: string): OutcomeScript {
  const script = new Map<string, ScriptedOutcome[]>();
  for (const [target, outcomes] of byTarget) {
    const path = leafPathOf(plan, target, param);
    script.set(path, [...(script.get(path) ?? []), ...outcomes]);
  }
  return script;
}

/** The leaf a target reference (path or unique name) means; 400 `invalid_simulation` with "did you mean" otherwise. */
export function leafPathOf(plan: RoutePlan, target: string, param: string): string {
  const nodes = allNodes(plan.root);
  const byPath = nodes.find((node) => node.path === target);
  const named = byPath === undefined ? nodes.filter((node) => node.name === target) : [byPath];
  if (named.length > 1) throw invalid(`The name ${JSON.stringify(target)} belongs to ${named.length} targets (${named.map((n) => n.path).join(', ')}); use a path.`, param);
  const node = named[0];
  if (node === undefined) {
    const candidates = nodes.flatMap((n) => (n.name === null ? [n.path] : [n.path, n.name]));
    const hint = didYouMean(target, candidates);
    throw invalid(`The config has no target ${JSON.stringify(target)}${hint === undefined ? '' : `; ${hint}`} (its providers: ${leavesOf(plan.root).map((l) => l.path).join(', ')}).`, param);
  }
  if (node.kind !== 'leaf') throw invalid(`${node.path} is a ${node.mode} strategy, not a provider: script the targets under it.`, param);
  return node.path;
}

/** Every node of a plan, parents before children. */
export function allNodes(node: PlanNode): PlanNode[] {
  return node.kind === 'leaf' ? [node] : [node, ...node.targets.flatMap(allNodes)];
}

function invalid(message: string, param: string): GatewayError {
  return new GatewayError('invalid_simulation', message, param);
}
