// One config holds at most 1,000 targets, counted at every level together (compiler/config/
// target-count.ts): past that the config is refused before its schema check, at the first target
// past the limit, and the reference model says the same.
import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../compiler/config/index.ts';
import { MAX_CONFIG_TARGETS } from '../../compiler/config/target-count.ts';
import { referenceSemanticErrors } from './reference-semantics.ts';

const leaf = { provider: 'openai', api_key: 'sk-test' };

/** A loadbalance of `groups` loadbalances of `each` leaves: groups × (each + 1) targets. */
function nested(groups: number, each: number, child: Record<string, unknown> = leaf): Record<string, unknown> {
  return { strategy: { mode: 'loadbalance' }, targets: Array.from({ length: groups }, () => ({ strategy: { mode: 'loadbalance' }, targets: Array.from({ length: each }, () => child) })) };
}

describe('the targets of one config', () => {
  it(`may number ${MAX_CONFIG_TARGETS}, at every level together`, () => {
    const config = nested(10, 99);
    expect(checkConfig(config).ok).toBe(true);
    expect(referenceSemanticErrors(config)).toEqual([]);
  });

  it('past that, refuse the config at the first target past the limit, depth first', () => {
    // 10 groups of 100 leaves: 1,010 targets; the 1,001st is the 91st leaf of the tenth group.
    const config = nested(10, 100);
    const result = checkConfig(config);
    const expected = [{ code: 'CFG_TOO_MANY_TARGETS', pointer: '/targets/9/targets/90' }];
    expect(result.ok ? [] : result.errors.map(({ code, pointer }) => ({ code, pointer }))).toEqual(expected);
    expect(referenceSemanticErrors(config)).toEqual(expected);
  });

  it('are counted before the schema check: 2,000 invalid targets are one error, not 2,000 of each kind', () => {
    const config = nested(1, 2_000, { provider: 'openai', bogus: true });
    const result = checkConfig(config);
    expect(result.ok ? [] : result.errors.map((e) => e.code)).toEqual(['CFG_TOO_MANY_TARGETS']);
  });
});
