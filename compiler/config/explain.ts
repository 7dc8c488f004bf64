// The routing tree of a compiled config in words (`gateway explain`): which target when, weights as
// shares, retries, timeouts, breakers, caches, hooks and guardrails. Read off the plan, the same one
// the router is emitted from, so it says what will run. Credentials appear redacted.
import { redactCredential, redactCredentials } from './secrets.ts';
import type { PlanCondition, PlanLeaf, PlanNode, PlanQuery, RoutePlan } from './route-plan.ts';

export interface ExplainedNode {
  path: string;
  name: string | null;
  /** One line: what this node is. */
  summary: string;
  /** Its settings in words (retry, timeout, breaker, cache, hooks, overrides). */
  details: string[];
  /** For a strategy: how it picks among its targets. */
  picks?: string[];
  targets?: ExplainedNode[];
}

export function explainPlan(plan: RoutePlan): ExplainedNode {
  return explainNode(plan.root, null);
}

/** The tree as indented text. */
export function explainText(plan: RoutePlan): string {
  const lines: string[] = [`config ${plan.configId}`];
  const walk = (node: ExplainedNode, indent: string): void => {
    lines.push(`${indent}${node.path}${node.name === null ? '' : ` "${node.name}"`}: ${node.summary}`);
    for (const detail of node.details) lines.push(`${indent}  - ${detail}`);
    for (const pick of node.picks ?? []) lines.push(`${indent}  * ${pick}`);
    for (const child of node.targets ?? []) walk(child, `${indent}    `);
  };
  walk(explainPlan(plan), '  ');
  return `${lines.join('\n')}\n`;
}

function explainNode(node: PlanNode, parent: PlanNode | null): ExplainedNode {
  const details = settings(node, parent);
  if (node.kind === 'leaf') return { path: node.path, name: node.name, summary: leafSummary(node), details };
  const targets = node.targets.map((child) => explainNode(child, node));
  return { path: node.path, name: node.name, summary: strategySummary(node.mode, node.targets.length), details, picks: picks(node), targets };
}

function leafSummary(leaf: PlanLeaf): string {
  const who = leaf.virtualKey !== null ? `virtual key ${leaf.virtualKey}` : leaf.provider !== null ? `provider ${leaf.provider}` : 'the provider the request headers name';
  const parts = [`calls ${who}`];
  if (leaf.customHost !== null) parts.push(`at ${leaf.customHost}`);
  if (leaf.apiKey !== null) parts.push(`with key ${leaf.apiKey.includes('${') ? leaf.apiKey : redactCredential(leaf.apiKey)}`);
  else if (leaf.virtualKey === null) parts.push("with the request's bearer token");
  if (leaf.promptId !== null) parts.push(`rendering prompt ${leaf.promptId}`);
  const options = Object.entries(redactCredentials(leaf.providerOptions));
  if (options.length > 0) parts.push(`(${options.map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`).join(', ')})`);
  if (leaf.strictVendorCompliance) parts.push('answering exactly as the vendor does (strict_vendor_compliance)');
  return parts.join(' ');
}

function strategySummary(mode: string, count: number): string {
  switch (mode) {
    case 'single': return 'single: always the first target';
    case 'loadbalance': return `loadbalance over ${count} targets, picked at random by weight`;
    case 'fallback': return `fallback over ${count} targets, tried in order`;
    default: return `conditional over ${count} targets, by the first matching condition`;
  }
}

function picks(node: Extract<PlanNode, { kind: 'strategy' }>): string[] {
  const label = (i: number): string => node.targets[i].name === null ? node.targets[i].path : `"${node.targets[i].name}"`;
  switch (node.mode) {
    case 'loadbalance': {
      const total = node.targets.reduce((sum, t) => sum + t.weight, 0);
      return node.targets.map((t, i) => `${label(i)}: ${total === 0 ? 0 : Math.round((t.weight / total) * 1000) / 10}% (weight ${t.weight})`);
    }
    case 'fallback':
      return node.targets.map((t, i) => {
        const codes = t.onStatusCodes ?? node.fallbackOnStatusCodes;
        return `${i + 1}. ${label(i)}; ${i === node.targets.length - 1 ? 'its answer is final' : `the next is tried after ${codes === null ? 'any non-2xx answer' : `a ${codes.join(', ')} answer`}`}`;
      });
    case 'conditional':
      return [...node.conditions.map((c: PlanCondition) => `if ${query(c.query)} → ${label(c.then)}`), `otherwise → ${node.defaultTarget === null ? 'none' : label(node.defaultTarget)}`];
    default:
      return [];
  }
}

function query(q: PlanQuery): string {
  if (q.op === 'and') return q.all.map((part) => `(${query(part)})`).join(' and ');
  if (q.op === 'or') return q.any.map((part) => `(${query(part)})`).join(' or ');
  const field = [q.field.root, ...q.field.path].join('.');
  const words: Record<string, string> = { $eq: 'is', $ne: 'is not', $gt: '>', $gte: '≥', $lt: '<', $lte: '≤', $in: 'is one of', $nin: 'is none of', $regex: 'matches' };
  return `${field} ${words[q.operator]} ${JSON.stringify(q.value)}`;
}

/** What this node sets, said once: a setting inherited unchanged from the parent is not repeated. */
function settings(node: PlanNode, parent: PlanNode | null): string[] {
  const same = (key: keyof PlanNode): boolean => parent !== null && JSON.stringify(parent[key]) === JSON.stringify(node[key]);
  const out: string[] = [];
  if (node.retry !== null && !same('retry')) out.push(node.retry.attempts === 0 ? 'no retries' : `retries up to ${node.retry.attempts}× on ${node.retry.onStatusCodes.join(', ')}${node.retry.useRetryAfterHeaders ? ', waiting as Retry-After says' : ''}`);
  if (node.requestTimeoutMs !== null && !same('requestTimeoutMs')) out.push(`times out after ${node.requestTimeoutMs} ms`);
  if (node.breaker !== null && !same('breaker')) out.push(`circuit opens after ${node.breaker.failureThreshold} failures${node.breaker.failureStatusCodes === null ? '' : ` (${node.breaker.failureStatusCodes.join(', ')})`} for ${node.breaker.cooldownMs} ms`);
  if (node.cache !== null && !same('cache')) out.push(`${node.cache.mode} cache, ${node.cache.maxAgeSeconds === null ? 'the server default max age' : `${node.cache.maxAgeSeconds} s`}${parent === null ? ' (the whole route)' : ' (this target\'s tries)'}`);
  if (Object.keys(node.overrideParams).length > 0 && !same('overrideParams')) out.push(`overrides ${Object.entries(node.overrideParams).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')}`);
  if (node.forwardHeaders.length > 0 && !same('forwardHeaders')) out.push(`forwards headers ${node.forwardHeaders.join(', ')}`);
  const hooks = (list: unknown[], label: string, key: keyof PlanNode): void => {
    if (list.length === 0 || same(key)) return;
    out.push(`${label}: ${list.map(hookWords).join('; ')}`);
  };
  hooks(node.beforeRequestHooks, 'before the request', 'beforeRequestHooks');
  hooks(node.inputGuardrails, 'input guardrails', 'inputGuardrails');
  hooks(node.afterRequestHooks, 'after the request', 'afterRequestHooks');
  hooks(node.outputGuardrails, 'output guardrails', 'outputGuardrails');
  return out;
}

const RESERVED = new Set(['id', 'type', 'deny', 'async', 'on_fail', 'on_success', 'checks', 'name']);

function hookWords(raw: unknown): string {
  const hook = raw as Record<string, unknown>;
  const checks = Array.isArray(hook.checks) ? (hook.checks as Array<{ id: string }>).map((c) => c.id) : Object.keys(hook).filter((k) => !RESERVED.has(k));
  const onFail = hook.on_fail as { deny?: unknown } | undefined;
  const onSuccess = hook.on_success as { deny?: unknown } | undefined;
  const deny = hook.deny === true || onFail?.deny === true ? 'denies (446) when it fails' : onSuccess?.deny === true ? 'denies (446) when it passes' : 'marks a failure 246';
  return `${String(hook.id ?? 'unnamed')} (${checks.join(', ')}; ${hook.async === true ? 'async, only logs' : deny})`;
}
