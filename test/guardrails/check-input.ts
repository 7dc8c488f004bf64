// Building check inputs and preparing built-in checks the way the hook stages do, for tests.
import { BUILT_IN_CHECKS } from '../../runtime/pipeline/guardrails/check-registry.ts';
import type { CheckFn, CheckInput, CheckTools, CheckVerdict, TextTransform } from '../../runtime/pipeline/guardrails/check.ts';
import { HostPolicy } from '../../runtime/providers/host-policy.ts';
import { CheckBudget } from '../../runtime/pipeline/guardrails/check-budget.ts';

export function input(text: string, over: Partial<CheckInput> = {}): CheckInput {
  return { phase: 'before', text, endpoint: 'chat', model: 'gpt-4o-mini', metadata: {}, headers: {}, request: {}, response: null, signal: new AbortController().signal, budget: new CheckBudget(), ...over };
}

export function tools(over: Partial<CheckTools> = {}): CheckTools {
  return { hostPolicy: new HostPolicy(), now: Date.now, resolve: () => Promise.reject(new Error('no DNS in tests')), ...over };
}

/** A verdict check, prepared; it must be one. */
export function verdictCheck(id: string, parameters: Record<string, unknown>, with_: CheckTools = tools()): CheckFn {
  const definition = BUILT_IN_CHECKS[id];
  if (definition.kind !== 'verdict') throw new Error(`${id} is a transformer`);
  return definition.prepare(parameters, with_);
}

/** The verdict of a check that answers synchronously. */
export function judge(id: string, parameters: Record<string, unknown>, text: string, over: Partial<CheckInput> = {}): CheckVerdict {
  const out = verdictCheck(id, parameters)(input(text, over));
  if (out instanceof Promise) throw new Error(`${id} answered with a promise`);
  return out;
}

export function transformer(id: string, parameters: Record<string, unknown>): { transform: TextTransform; failOnDetection: boolean } {
  const definition = BUILT_IN_CHECKS[id];
  if (definition.kind !== 'transform') throw new Error(`${id} is not a transformer`);
  return definition.prepare(parameters);
}
