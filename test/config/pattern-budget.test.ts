// One config's patterns are compiled within a budget (compiler/config/linear-regex.ts,
// MAX_CONFIG_PATTERN_STEPS): conditions' $regex, check rules and schema patterns count together, in
// the order the check meets them, and the patterns past it are refused without being compiled, each
// at its own pointer.
import { describe, expect, it } from 'vitest';
import { checkConfig, type ConfigError } from '../../compiler/config/index.ts';
import { checkNamedGuardrail } from '../../compiler/config/hook-checks.ts';
import { compilePattern, MAX_CONFIG_PATTERN_STEPS, PATTERN_OVERHEAD_STEPS } from '../../compiler/config/linear-regex.ts';

const leaf = { provider: 'openai', api_key: 'sk-test' };
const BUDGET_MESSAGE = new RegExp(`one config's patterns may compile to at most ${MAX_CONFIG_PATTERN_STEPS} together`);

function conditional(patterns: string[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    strategy: { mode: 'conditional', conditions: patterns.map((p) => ({ query: { 'params.model': { $regex: p } }, then: 'a' })), default: 'a' },
    targets: [{ name: 'a', ...leaf }],
    ...extra,
  };
}

function errorsOf(config: unknown): ConfigError[] {
  const result = checkConfig(config);
  return result.ok ? [] : result.errors;
}

/** How many patterns of these sizes fit before the budget is spent (the one that spends it still compiles). */
function fitting(sizes: number[]): number {
  let spent = 0;
  for (let i = 0; i < sizes.length; i++) {
    if (spent >= MAX_CONFIG_PATTERN_STEPS) return i;
    spent += PATTERN_OVERHEAD_STEPS + sizes[i];
  }
  return sizes.length;
}

describe("a config's patterns", () => {
  it('compile until they reach the budget; each pattern after it is refused at its pointer, saying why', () => {
    const large = Array.from({ length: 30 }, (_, i) => `[a-z]{1000}${i}`);
    const fit = fitting(large.map((p) => compilePattern(p).steps));
    expect(fit).toBeGreaterThan(10);
    expect(fit).toBeLessThan(30);
    const errors = errorsOf(conditional(large));
    expect(errors.map((e) => e.pointer)).toEqual(large.slice(fit).map((_, k) => `/strategy/conditions/${fit + k}/query/params.model/$regex`));
    for (const error of errors) {
      expect(error.code).toBe('CFG_REGEX_UNSUPPORTED');
      expect(error.message).toMatch(BUDGET_MESSAGE);
    }
    expect(errorsOf(conditional(large.slice(0, fit)))).toEqual([]);
  });

  it('count a small pattern too: compiling one costs tens of µs, whatever its size', () => {
    const small = Array.from({ length: 300 }, (_, i) => `^m${i}$`);
    const fit = fitting(small.map((p) => compilePattern(p).steps));
    expect(fit).toBeLessThan(MAX_CONFIG_PATTERN_STEPS / PATTERN_OVERHEAD_STEPS + 1);
    expect(errorsOf(conditional(small)).length).toBe(300 - fit);
    expect(errorsOf(conditional(small.slice(0, fit)))).toEqual([]);
  });

  it('share one budget across conditions, check rules and schema patterns', () => {
    const large = Array.from({ length: 40 }, (_, i) => `[a-z]{1000}${i}`);
    const fit = fitting(large.map((p) => compilePattern(p).steps));
    // Conditions are met first and spend it all: the rule and the schema's pattern after them are refused.
    const config = conditional(large.slice(0, fit), {
      input_guardrails: [
        { id: 'rule', 'default.regexMatch': { rule: '^ok$' } },
        { id: 'shape', 'default.jsonSchema': { schema: { type: 'object', properties: { a: { type: 'string', pattern: '^x$' } } } } },
      ],
    });
    const errors = errorsOf(config);
    expect(errors.map((e) => [e.code, e.pointer])).toEqual([
      ['CFG_INVALID_CHECK_REGEX', '/input_guardrails/0/default.regexMatch/rule'],
      ['CFG_INVALID_CHECK_SCHEMA', '/input_guardrails/1/default.jsonSchema/schema'],
    ]);
    for (const error of errors) expect(error.message).toMatch(BUDGET_MESSAGE);
    // With room left, the same guardrails pass.
    expect(errorsOf(conditional(large.slice(0, fit - 1), { input_guardrails: (config as { input_guardrails: unknown[] }).input_guardrails }))).toEqual([]);
  });

  it('of a stored guardrail have a budget of its own', () => {
    const checks = Array.from({ length: 30 }, (_, i) => ({ id: 'default.regexMatch', parameters: { rule: `[a-z]{1000}${i}` } }));
    const fit = fitting(checks.map((c) => compilePattern(c.parameters.rule).steps));
    const errors = checkNamedGuardrail({ checks });
    expect(errors.map((e) => e.pointer)).toEqual(checks.slice(fit).map((_, k) => `/checks/${fit + k}/parameters/rule`));
    expect(checkNamedGuardrail({ checks: checks.slice(0, fit) })).toEqual([]);
  });
});
