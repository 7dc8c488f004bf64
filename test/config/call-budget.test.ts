// The most provider calls one request can make through a config: a fallback adds up its targets'
// tries, the other strategies make those of the one target they pick; past 200 the config is refused.
import { describe, expect, it } from 'vitest';
import { MAX_CALLS_PER_REQUEST, MAX_HOOK_CALLS_PER_REQUEST, worstCaseCalls, worstCaseHookCalls } from '../../compiler/config/call-budget.ts';
import { checkConfig } from '../../compiler/config/index.ts';
import { referenceSemanticErrors } from './reference-semantics.ts';

const leaf = (attempts: number | null = null) => ({ virtual_key: 'v', ...(attempts === null ? {} : { retry: { attempts } }) });
const strategy = (mode: string, targets: unknown[], extra: Record<string, unknown> = {}) => ({ strategy: { mode, ...extra }, targets });
const calls = (config: unknown): number => {
  const result = checkConfig(config);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return worstCaseCalls(result.plan.root);
};

describe('worst-case provider calls of one request', () => {
  it('counts 1 + retry.attempts for a target, inherited as retry is', () => {
    expect(calls(leaf())).toBe(1);
    expect(calls(leaf(3))).toBe(4);
    expect(calls({ ...strategy('fallback', [leaf(), leaf(1)]), retry: { attempts: 2 } })).toBe(3 + 2);
  });

  it('adds up a fallback, takes the largest target of loadbalance and conditional, the first of single', () => {
    expect(calls(strategy('fallback', [leaf(2), leaf(4), leaf()]))).toBe(3 + 5 + 1);
    expect(calls(strategy('loadbalance', [leaf(2), leaf(4), leaf()]))).toBe(5);
    const conditional = { strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.tier': { $eq: 'pro' } }, then: 'a' }], default: 'b' }, targets: [{ name: 'a', ...leaf(5) }, { name: 'b', ...leaf(1) }] };
    expect(calls(conditional)).toBe(6);
    expect(calls(strategy('fallback', [strategy('loadbalance', [leaf(5), leaf(1)]), strategy('fallback', [leaf(5), leaf(5)])]))).toBe(6 + 12);
  });

  it(`allows ${MAX_CALLS_PER_REQUEST} calls and refuses more, at the config`, () => {
    const fallbackOf = (n: number, attempts: number) => strategy('fallback', Array.from({ length: n }, () => leaf(attempts)));
    expect(checkConfig(fallbackOf(40, 4)).ok).toBe(true);
    const refused = checkConfig(fallbackOf(41, 4));
    expect(refused.ok ? [] : refused.errors).toEqual([expect.objectContaining({ code: 'CFG_TOO_MANY_CALLS', pointer: '' })]);
    // A loadbalance over fallbacks counts its largest target: 30 × 6 = 180 (31 × 30 = 930 targets).
    expect(checkConfig(strategy('loadbalance', Array.from({ length: 30 }, () => fallbackOf(30, 5)))).ok).toBe(true);
  });
});

describe('worst-case hook calls of one request', () => {
  const webhook = (id: string) => ({ id, 'default.webhook': { webhookURL: 'https://hooks.example.com/check' } });
  const logged = { id: 'logged', 'default.log': { logURL: 'https://hooks.example.com/log' } };
  const hookCalls = (config: unknown): number => {
    const result = checkConfig(config);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    return worstCaseHookCalls(result.plan.root);
  };

  it("counts the root's before-request checks once and a target's own checks on every try", () => {
    expect(hookCalls(leaf())).toBe(0);
    expect(hookCalls({ ...leaf(3), input_guardrails: [webhook('in')] })).toBe(1);
    expect(hookCalls({ ...leaf(3), output_guardrails: [webhook('out')] })).toBe(4);
    expect(hookCalls({ ...leaf(), before_request_hooks: [{ id: 'h', checks: [{ id: 'default.log', parameters: { logURL: 'https://hooks.example.com/log' } }, { id: 'default.wordCount', parameters: { maxWords: 5 } }] }] })).toBe(1);
    // validUrls calls out (DNS) with onlyDNS only.
    expect(hookCalls({ ...leaf(), output_guardrails: [{ id: 'dns', 'default.validUrls': { onlyDNS: true } }, { id: 'form', 'default.validUrls': {} }] })).toBe(1);
    // Inherited by both targets of a fallback: once before, and per try of each target after.
    expect(hookCalls({ input_guardrails: [webhook('in')], output_guardrails: [webhook('out'), logged], ...strategy('fallback', [leaf(1), leaf()]) })).toBe(1 + 2 * 2 + 2);
    // A target with before hooks of its own runs them on each try, as well as the root's once.
    expect(hookCalls({ input_guardrails: [webhook('in')], ...strategy('loadbalance', [{ ...leaf(2), input_guardrails: [webhook('own')] }, leaf()]) })).toBe(1 + 3);
  });

  it(`allows ${MAX_HOOK_CALLS_PER_REQUEST} and refuses more, at the config`, () => {
    const guardrails = (n: number) => Array.from({ length: n }, (_, i) => webhook(`w${i}`));
    expect(checkConfig({ ...leaf(4), output_guardrails: guardrails(20) }).ok).toBe(true);
    const refused = checkConfig({ ...leaf(4), output_guardrails: guardrails(21) });
    expect(refused.ok ? [] : refused.errors).toEqual([expect.objectContaining({ code: 'CFG_TOO_MANY_CALLS', pointer: '', message: expect.stringContaining(`call out from its checks more than ${MAX_HOOK_CALLS_PER_REQUEST} times`) })]);
    expect(checkConfig({ ...leaf(), input_guardrails: guardrails(MAX_HOOK_CALLS_PER_REQUEST + 1) }).ok).toBe(false);
    // The reference model of the property tests says the same.
    expect(referenceSemanticErrors({ ...leaf(4), output_guardrails: guardrails(20) })).toEqual([]);
    expect(referenceSemanticErrors({ ...leaf(4), output_guardrails: guardrails(21) })).toEqual([{ code: 'CFG_TOO_MANY_CALLS', pointer: '' }]);
    const nested = { input_guardrails: [webhook('in')], output_guardrails: guardrails(3), ...strategy('fallback', [leaf(1), { ...leaf(2), input_guardrails: guardrails(4) }, leaf()]) };
    expect(hookCalls(nested)).toBe(1 + 2 * 3 + 3 * (4 + 3) + 3);
    expect(referenceSemanticErrors(nested)).toEqual([]);
    // Six more targets of six tries, each running the three inherited checks: 31 + 108.
    const more = { ...nested, targets: [...nested.targets, ...Array.from({ length: 6 }, () => leaf(5))] };
    expect(checkConfig(more).ok).toBe(false);
    expect(referenceSemanticErrors(more)).toEqual([{ code: 'CFG_TOO_MANY_CALLS', pointer: '' }]);
  });
});
