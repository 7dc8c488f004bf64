// Runs the hooks of one phase (ARCHITECTURE §5). Transformers go first, in config order, each on what
// the one before left, so every check judges the text the provider (or the client) will get; then
// every other check of every hook runs at once (a hook's checks and the phase's hooks concurrently).
// Synchronous checks are called directly: a phase of cheap checks awaits nothing. A hook passes when
// all its checks pass; a check that throws has errored, and fails only if it fails on errors. Every
// check and transformer spends the request's check budget (check-budget.ts); once it is spent the
// rest fail unrun.
import type { HookResult } from '../../core/request-record.ts';
import { BUILT_IN_CHECKS } from './check-registry.ts';
import type { CheckFn, CheckInput, CheckTools, CheckVerdict, HookPhase, TextTransform } from './check.ts';
import type { Feedback, HookSpec } from './hook-spec.ts';
import type { Rewritten } from './hook-text.ts';
import { BudgetSpent, type CheckBudget } from './check-budget.ts';

interface PreparedCheck {
  id: string;
  run: CheckFn | null;
  transform: TextTransform | null;
  failOnDetection: boolean;
  failOnError: boolean;
  /** Judges the text (every transformer does): it fails on a body whose text cannot be read. */
  readsText: boolean;
}

export interface PreparedHook {
  spec: HookSpec;
  checks: PreparedCheck[];
  hasTransform: boolean;
}

export interface FeedbackEntry {
  hook_id: string;
  value?: number;
  weight?: number;
  metadata?: Record<string, unknown>;
  successful_checks: string[];
  failed_checks: string[];
  errored_checks: string[];
}

/** What a phase reads besides its text, and the request's check budget it spends. */
export type PhaseContext = Omit<CheckInput, 'text' | 'request' | 'response'> & { request: unknown };

/** How a phase reads and rewrites its body (the request's params before, the answer after). */
export interface PhaseBody {
  textOf(body: unknown): string;
  /** More texts each check that reads text judges as well (an answer's other choices), named for its explanation. */
  otherTexts(body: unknown): ReadonlyArray<{ label: string; text: string }>;
  /** Why `body` has text no check can read (token ids), or null. */
  unreadable(body: unknown): string | null;
  rewrite(body: unknown, transform: TextTransform): Rewritten;
}

export interface PhaseRun {
  results: HookResult[];
  /** Some hook denied: 446. */
  denied: boolean;
  /** Some hook failed and none denied: the answer goes out as 246. */
  failed: boolean;
  /** The body after transformers and webhooks; the same value when nothing changed it. */
  body: unknown;
  feedback: FeedbackEntry[];
}

export function prepareHooks(specs: readonly HookSpec[], tools: CheckTools): PreparedHook[] {
  return specs.map((spec) => {
    const checks = spec.checks.map(({ id, parameters }): PreparedCheck => {
      const definition = BUILT_IN_CHECKS[id];
      if (definition.kind === 'transform') {
        const prepared = definition.prepare(parameters);
        // A transformer that could not run left its text as it was (unredacted): it fails.
        return { id, run: null, transform: prepared.transform, failOnDetection: prepared.failOnDetection, failOnError: true, readsText: true };
      }
      const failOnError = typeof parameters.failOnError === 'boolean' ? parameters.failOnError : definition.failOnErrorByDefault === true;
      return { id, run: definition.prepare(parameters, tools), transform: null, failOnDetection: false, failOnError, readsText: definition.readsText };
    });
    return { spec, checks, hasTransform: checks.some((c) => c.transform !== null) };
  });
}

type CheckResult = HookResult['checks'][number] & { transformedBody?: Record<string, unknown> };

/**
 * Runs `hooks` on `body`. `apply`: whether transformers' rewrites are kept (false for async hooks,
 * which judge what already went on: they report, they cannot change it).
 */
export function runPhase(hooks: readonly PreparedHook[], phase: HookPhase, ctx: PhaseContext, body: unknown, io: PhaseBody, apply = true): PhaseRun | Promise<PhaseRun> {
  const started = performance.now();
  const results: CheckResult[][] = hooks.map(() => []);
  let current = body;
  // Text no check can read fails every check that reads text, rather than passing them all as "".
  const unreadable = io.unreadable(body);
  const budget = ctx.budget;
  hooks.forEach((hook, h) => {
    if (!hook.hasTransform) return;
    for (const check of hook.checks) {
      if (check.transform === null) continue;
      const t0 = performance.now();
      if (unreadable !== null) {
        results[h].push(unread(check, unreadable, t0));
        continue;
      }
      if (!budget.open) {
        results[h].push(notRun(check, budget, t0));
        continue;
      }
      let rewritten: Rewritten;
      try {
        // Charged per text: one transformer rewrites every message.
        rewritten = io.rewrite(current, budget.metered(check.transform));
      } catch (error) {
        results[h].push(errored(check, error, t0));
        continue;
      }
      if (apply) current = rewritten.value;
      const verdict = !(check.failOnDetection && rewritten.found > 0);
      results[h].push({ id: check.id, verdict, explanation: rewritten.found === 0 ? 'nothing to replace' : apply ? `replaced ${rewritten.found}` : `found ${rewritten.found}, not replaced: an async hook only reports`, error: null, executionTimeMs: elapsed(t0) });
    }
  });
  // One literal, one shape for every check input.
  const input: CheckInput = {
    phase,
    text: io.textOf(current),
    endpoint: ctx.endpoint,
    model: ctx.model,
    metadata: ctx.metadata,
    headers: ctx.headers,
    request: phase === 'before' ? current : ctx.request,
    response: phase === 'after' ? current : null,
    signal: ctx.signal,
    budget,
  };
  const others = io.otherTexts(current);
  const pending: Array<Promise<void>> = [];
  hooks.forEach((hook, h) => {
    for (const check of hook.checks) {
      if (check.run === null) continue;
      const t0 = performance.now();
      if (unreadable !== null && check.readsText) {
        results[h].push(unread(check, unreadable, t0));
        continue;
      }
      if (!budget.open) {
        results[h].push(notRun(check, budget, t0));
        continue;
      }
      let out: CheckVerdict | Promise<CheckVerdict>;
      try {
        out = check.readsText && others.length > 0 ? acrossTexts(check.run, input, others) : check.run(input);
      } catch (error) {
        results[h].push(errored(check, error, t0));
        continue;
      } finally {
        // What ran on this thread; a check that calls out is charged until it returned its promise.
        budget.charge(t0);
      }
      if (out instanceof Promise) {
        const slot = results[h].length;
        results[h].push(errored(check, new Error('did not finish'), t0));
        pending.push(out.then((v) => void (results[h][slot] = judged(check, v, t0)), (error: unknown) => void (results[h][slot] = errored(check, error, t0))));
      } else results[h].push(judged(check, out, t0));
    }
  });
  const finish = (): PhaseRun => assemble(hooks, results, current, started);
  return pending.length === 0 ? finish() : Promise.all(pending).then(finish);
}

/**
 * A check of every text: the input's and `others` (an answer's other choices). It passes when it
 * passes on each; else the verdict of the first text it failed on, named unless it is the input's.
 */
function acrossTexts(run: CheckFn, input: CheckInput, others: ReadonlyArray<{ label: string; text: string }>): CheckVerdict | Promise<CheckVerdict> {
  const verdicts = [run(input), ...others.map(({ text }) => run({ ...input, text }))];
  const combine = (all: readonly CheckVerdict[]): CheckVerdict => {
    const failed = all.findIndex((v) => !v.verdict);
    if (failed <= 0) return all[0]!;
    const { label } = others[failed - 1]!;
    return { ...all[failed]!, explanation: `${label}: ${all[failed]!.explanation}` };
  };
  return verdicts.some((v) => v instanceof Promise) ? Promise.all(verdicts).then(combine) : combine(verdicts as CheckVerdict[]);
}

/**
 * The phase of `hooks` when there was nothing they could judge (`reason`): every check errored, so
 * each fails only if it fails on errors, as when a check itself throws.
 */
export function unjudgedPhase(hooks: readonly PreparedHook[], reason: string, body: unknown): PhaseRun {
  const started = performance.now();
  const error = new Error(reason);
  return assemble(hooks, hooks.map((hook) => hook.checks.map((check) => errored(check, error, started))), body, started);
}

function assemble(hooks: readonly PreparedHook[], results: CheckResult[][], body: unknown, started: number): PhaseRun {
  const executionTimeMs = elapsed(started);
  let current = body;
  let denied = false;
  let failed = false;
  const feedback: FeedbackEntry[] = [];
  const hookResults = hooks.map((hook, h): HookResult => {
    const checks = results[h];
    const verdict = checks.every((c) => c.verdict);
    const deny = verdict ? hook.spec.denyOnSuccess : hook.spec.denyOnFail;
    if (deny) denied = true;
    else if (!verdict) failed = true;
    // A webhook's replacement body, when its hook let the request on.
    for (const check of checks) if (check.transformedBody !== undefined && !deny) current = check.transformedBody;
    const given = verdict ? hook.spec.onSuccess : hook.spec.onFail;
    if (given !== null) feedback.push(feedbackEntry(hook.spec.id, given, checks));
    return { id: hook.spec.id, type: hook.spec.type, verdict, deny, async: hook.spec.async, checks: checks.map(({ transformedBody: _, ...check }) => check), executionTimeMs };
  });
  return { results: hookResults, denied, failed: failed && !denied, body: current, feedback };
}

function feedbackEntry(hookId: string, given: Feedback, checks: CheckResult[]): FeedbackEntry {
  return {
    hook_id: hookId,
    ...(given.value === undefined ? {} : { value: given.value }),
    ...(given.weight === undefined ? {} : { weight: given.weight }),
    ...(given.metadata === undefined ? {} : { metadata: given.metadata }),
    successful_checks: checks.filter((c) => c.verdict && c.error === null).map((c) => c.id),
    failed_checks: checks.filter((c) => !c.verdict).map((c) => c.id),
    errored_checks: checks.filter((c) => c.error !== null).map((c) => c.id),
  };
}

function judged(check: PreparedCheck, verdict: CheckVerdict, t0: number): CheckResult {
  const result: CheckResult = { id: check.id, verdict: verdict.verdict, explanation: verdict.explanation, error: null, executionTimeMs: elapsed(t0) };
  if (verdict.transformedBody !== undefined) result.transformedBody = verdict.transformedBody;
  return result;
}

function unread(check: PreparedCheck, reason: string, t0: number): CheckResult {
  return { id: check.id, verdict: false, explanation: reason, error: null, executionTimeMs: elapsed(t0) };
}

/** A check the request's budget left no time for: it fails whatever its failOnError (check-budget.ts says why). */
function notRun(check: PreparedCheck, budget: CheckBudget, t0: number): CheckResult {
  return { id: check.id, verdict: false, explanation: null, error: budget.spentReason(), executionTimeMs: elapsed(t0) };
}

function errored(check: PreparedCheck, error: unknown, t0: number): CheckResult {
  // A check the budget stopped was not judged: failOnError false must not let a deny rule pass unjudged.
  return { id: check.id, verdict: !(check.failOnError || error instanceof BudgetSpent), explanation: null, error: error instanceof Error ? error.message : String(error), executionTimeMs: elapsed(t0) };
}

function elapsed(t0: number): number {
  return Math.round((performance.now() - t0) * 1000) / 1000;
}
