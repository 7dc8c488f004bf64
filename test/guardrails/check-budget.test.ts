// One request's checks share a time budget (check-budget.ts): past it the checks still to run fail
// unrun, whatever their failOnError, and a transformer stops at the text that found it spent. The
// checks here are made slow on purpose: a 104-step pattern on random a/b text defeats the linear
// engine's state cache, so each match costs milliseconds.
import { describe, expect, it } from 'vitest';
import { planConfig } from '../../compiler/config/plan.ts';
import { CheckBudget } from '../../runtime/pipeline/guardrails/check-budget.ts';
import { hookSpecs } from '../../runtime/pipeline/guardrails/hook-spec.ts';
import { requestText, rewriteRequest, unreadableRequestText } from '../../runtime/pipeline/guardrails/hook-text.ts';
import { type PhaseBody, type PhaseContext, type PhaseRun, prepareHooks, runPhase } from '../../runtime/pipeline/guardrails/run-hooks.ts';
import { tools } from './check-input.ts';

const SLOW_RULE = 'a[ab]{100}[0-9]';

/**
 * The i-th of as many distinct slow rules: a compiled pattern is shared by its text, and its state
 * cache remembers a text it has seen, so the same rule on the same text again is fast.
 */
function slowRule(i: number): string {
  return `a[ab]{${60 + i}}[0-9]`;
}
const CHAT: PhaseBody = { textOf: (b) => requestText('chat', b), otherTexts: () => [], unreadable: (b) => unreadableRequestText('chat', b), rewrite: (b, t) => rewriteRequest('chat', b, t) };

/** Random a and b: never matches the slow rules (no digit), and keeps the engine's state cache missing. */
function abText(length: number, seed: number): string {
  let x = seed;
  let text = '';
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    text += (x >> 16) & 1 ? 'a' : 'b';
  }
  return text;
}

function hooksOf(guardrails: unknown[]) {
  const plan = planConfig({ provider: 'openai', api_key: 'sk-test', input_guardrails: guardrails }, 'budget');
  return prepareHooks(hookSpecs(plan.root, 'before'), tools());
}

function context(budget: CheckBudget, request: unknown): PhaseContext {
  return { phase: 'before', endpoint: 'chat', model: 'm', metadata: {}, headers: {}, request, signal: new AbortController().signal, budget } as PhaseContext;
}

/** Guardrails that pass when they run (`not`: the rule never matches) and deny when they fail. */
function slowGuardrails(count: number, over: Record<string, unknown> = {}): unknown[] {
  return Array.from({ length: count }, (_, i) => ({ id: `g${i}`, deny: true, 'default.regexMatch': { rule: slowRule(i), not: true, ...over } }));
}

async function run(hooks: ReturnType<typeof hooksOf>, budget: CheckBudget, body: unknown): Promise<PhaseRun> {
  return runPhase(hooks, 'before', context(budget, body), body, CHAT);
}

describe('the check budget of one request', () => {
  // 20,000 characters: a millisecond a check on a fast machine, tens on a slow one; every budget below is spent within a few checks.
  const body = { model: 'm', messages: [{ role: 'user', content: abText(20_000, 7) }] };

  it('fails the checks after it is spent, unrun, and lets the ones before it judge', async () => {
    const budget = new CheckBudget(5);
    const started = performance.now();
    const phase = await run(hooksOf(slowGuardrails(60)), budget, body);
    const elapsed = performance.now() - started;
    const checks = phase.results.map((r) => r.checks[0]);
    const ran = checks.filter((c) => c.error === null);
    const unrun = checks.filter((c) => c.error !== null);
    expect(ran.length).toBeGreaterThan(0);
    expect(unrun.length).toBeGreaterThan(0);
    // In order: every check judged came before every check left unrun.
    expect(checks.slice(0, ran.length)).toEqual(ran);
    for (const c of ran) expect(c.verdict).toBe(true);
    for (const c of unrun) {
      expect(c.verdict).toBe(false);
      expect(c.error).toMatch(/^not run: this request's checks had already held the gateway for \d+ ms, and one request's checks may take at most 5 ms$/);
    }
    expect(phase.denied).toBe(true);
    // The budget, plus the one check running when it ran out (a few of these checks' time).
    const slowest = Math.max(...ran.map((c) => c.executionTimeMs));
    expect(elapsed).toBeLessThan(5 + 3 * slowest + 250);
  });

  it('fails a check left unrun even when errors do not fail it: a long prompt must not pass a deny rule unjudged', async () => {
    const budget = new CheckBudget(0);
    const phase = await run(hooksOf(slowGuardrails(2, { failOnError: false })), budget, body);
    expect(phase.results.map((r) => r.checks[0].verdict)).toEqual([false, false]);
    expect(phase.denied).toBe(true);
  });

  it('is shared by the phases of a request: what the first spent, the next cannot', async () => {
    const budget = new CheckBudget(5);
    await run(hooksOf(slowGuardrails(20)), budget, body);
    expect(budget.open).toBe(false);
    const next = await run(hooksOf([{ id: 'cheap', deny: true, 'default.wordCount': { minWords: 1 } }]), budget, body);
    expect(next.results[0].checks[0].error).toMatch(/^not run: /);
    expect(next.denied).toBe(true);
  });

  it('stops a transformer at the message that found it spent, and the transformer fails with the request left as it was', async () => {
    const messages = Array.from({ length: 200 }, (_, i) => ({ role: 'user', content: abText(5_000, i + 1) }));
    const many = { model: 'm', messages };
    const hooks = hooksOf([{ id: 'redact', 'default.regexReplace': { rule: SLOW_RULE } }]);
    const budget = new CheckBudget(5);
    const phase = await run(hooks, budget, many);
    const check = phase.results[0].checks[0];
    expect(check.verdict).toBe(false);
    expect(check.error).toMatch(/^not run: /);
    expect(phase.body).toBe(many);
    expect(phase.failed).toBe(true);
  });

  it('is not noticed by a request whose checks take less', async () => {
    const budget = new CheckBudget();
    const phase = await run(hooksOf(slowGuardrails(3)), budget, body);
    expect(phase.results.map((r) => r.checks[0])).toMatchObject([{ verdict: true, error: null }, { verdict: true, error: null }, { verdict: true, error: null }]);
    expect(budget.spentMs).toBeGreaterThan(0);
    expect(budget.open).toBe(true);
  });

  it('counts the jsonSchema thread\'s time too: validations past it fail unjudged, whatever their failOnError', async () => {
    // Each level of the JSON doubles the schema's work: 2^40 steps would run for days.
    const exponential = { $defs: { n: { oneOf: [{ properties: { a: { $ref: '#/$defs/n' } } }, { allOf: [{ properties: { a: { $ref: '#/$defs/n' } } }, { required: ['b'] }] }] } }, $ref: '#/$defs/n' };
    let json: unknown = {};
    for (let i = 0; i < 40; i++) json = { a: json };
    const guardrails = [0, 1, 2].map((i) => ({ id: `schema${i}`, deny: true, 'default.jsonSchema': { schema: { ...exponential, title: `s${i}` }, failOnError: false } }));
    const budget = new CheckBudget(300);
    const started = performance.now();
    const phase = await run(hooksOf(guardrails), budget, { model: 'm', messages: [{ role: 'user', content: JSON.stringify(json) }] });
    const checks = phase.results.map((r) => r.checks[0]);
    // Without the budget each would run to the thread's limit (1 s) and then pass, failOnError being false.
    expect(checks.map((c) => c.verdict)).toEqual([false, false, false]);
    for (const c of checks) expect(c.error).toMatch(/^not run: /);
    expect(phase.denied).toBe(true);
    expect(performance.now() - started).toBeLessThan(1500);
  });
});
