// The most provider calls one request can make through a config: a fallback adds up its targets'
// tries, the other strategies make those of the one target they pick; past 200 the config is refused.
import { describe, expect, it } from 'vitest';
import { MAX_CALLS_PER_REQUEST, worstCaseCalls } from '../../compiler/config/call-budget.ts';
import { checkConfig } from '../../compiler/config/index.ts';

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
