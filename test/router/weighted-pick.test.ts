import { describe, expect } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import { fallbackOrder, pickWeighted } from '../../runtime/router/weighted-pick.ts';
import { seededRandom } from '../../runtime/simulate/seeded-random.ts';

// Seeded draws, so the statistical tests draw the same numbers every run.

/** Pearson's statistic of observed counts against weight-proportional expectations (usable cells only). */
function chiSquare(counts: number[], weights: number[], usable: boolean[], draws: number): { statistic: number; df: number } {
  const total = weights.reduce((sum, w, i) => (usable[i] ? sum + w : sum), 0);
  let statistic = 0;
  let cells = 0;
  weights.forEach((w, i) => {
    if (!usable[i]) return;
    const expected = (draws * w) / total;
    statistic += (counts[i] - expected) ** 2 / expected;
    cells++;
  });
  return { statistic, df: cells - 1 };
}

/** Wilson–Hilferty approximation of the chi-square quantile at standard-normal score z. */
function chiSquareCritical(df: number, z: number): number {
  const h = 2 / (9 * df);
  return df * (1 - h + z * Math.sqrt(h)) ** 3;
}

describe('pickWeighted', () => {
  test('honours the weights (chi-square, fixed seed, p = 0.001)', () => {
    const weights = [1, 3, 0, 6, 2.5];
    const eligible = [true, true, true, true, false];
    const random = seededRandom(20250615);
    const draws = 60_000;
    const counts = weights.map(() => 0);
    for (let i = 0; i < draws; i++) counts[pickWeighted(weights, eligible, random)]++;
    expect(counts[2]).toBe(0);
    expect(counts[4]).toBe(0);
    const { statistic, df } = chiSquare(counts, weights, [true, true, false, true, false], draws);
    expect(df).toBe(2);
    expect(statistic).toBeLessThan(13.816);
  });

  test.prop(
    [
      fc.array(fc.record({ weight: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20 }), fc.double({ min: 0.5, max: 50, noNaN: true })), eligible: fc.boolean() }), {
        minLength: 1,
        maxLength: 6,
      }),
      fc.integer(),
    ],
    { numRuns: 25 },
  )('honours any weights statistically and never picks weight 0 or an ineligible target', (targets, seed) => {
    const weights = targets.map((t) => t.weight);
    const eligible = targets.map((t) => t.eligible);
    const usable = targets.map((t) => t.eligible && t.weight > 0);
    const random = seededRandom(seed);
    const draws = 20_000;
    if (!usable.includes(true)) {
      expect(pickWeighted(weights, eligible, random)).toBe(-1);
      return;
    }
    const counts = weights.map(() => 0);
    for (let i = 0; i < draws; i++) counts[pickWeighted(weights, eligible, random)]++;
    expect(counts.every((c, i) => usable[i] || c === 0)).toBe(true);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(draws);
    const { statistic, df } = chiSquare(counts, weights, usable, draws);
    // z = 6 keeps false alarms below one in a few hundred million runs, while moving even 5% of
    // the draws from one target to another exceeds the bound many times over at 20 000 draws.
    if (df > 0) expect(statistic).toBeLessThan(chiSquareCritical(df, 6));
  });

  test.prop([fc.array(fc.tuple(fc.double({ min: -5, max: 10, noNaN: true }), fc.boolean()), { maxLength: 8 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })], {
    numRuns: 500,
  })('returns a usable index for every random value, -1 exactly when none is usable', (targets, r) => {
    const weights = targets.map(([w]) => w);
    const eligible = targets.map(([, e]) => e);
    const picked = pickWeighted(weights, eligible, () => r);
    const anyUsable = targets.some(([w, e]) => e && w > 0);
    if (!anyUsable) expect(picked).toBe(-1);
    else expect(eligible[picked] && weights[picked] > 0).toBe(true);
  });

  test('maps the unit interval onto cumulative weights in order', () => {
    const weights = [1, 0, 3];
    const all = [true, true, true];
    expect(pickWeighted(weights, all, () => 0)).toBe(0);
    expect(pickWeighted(weights, all, () => 0.2499)).toBe(0);
    expect(pickWeighted(weights, all, () => 0.25)).toBe(2);
    expect(pickWeighted(weights, all, () => 0.999999999)).toBe(2);
    expect(pickWeighted([2, 2], [false, true], () => 0)).toBe(1);
  });

  test('honours weights whose sum passes the largest number (near Number.MAX_VALUE) as their ratios', () => {
    const huge = Number.MAX_VALUE / 2;
    expect(pickWeighted([huge, huge, huge], [true, true, true], () => 0.1)).toBe(0);
    expect(pickWeighted([huge, huge, huge], [true, true, true], () => 0.5)).toBe(1);
    expect(pickWeighted([huge, 1, huge], [true, true, true], () => 0.49)).toBe(0);
    expect(pickWeighted([huge, 1, huge], [true, true, true], () => 0.51)).toBe(2);
    const random = seededRandom(7);
    const counts = [0, 0];
    for (let i = 0; i < 20_000; i++) counts[pickWeighted([1e308, 1e308], [true, true], random)]++;
    expect(chiSquare(counts, [1, 1], [true, true], 20_000).statistic).toBeLessThan(chiSquareCritical(1, 6));
  });

  test('ignores weights that are not positive finite numbers and random values outside [0, 1)', () => {
    expect(pickWeighted([Number.NaN, Infinity, -1, 0], [true, true, true, true], () => 0.5)).toBe(-1);
    expect(pickWeighted([Number.NaN, 4], [true, true], () => 0.1)).toBe(1);
    expect(pickWeighted([1, 1], [true, true], () => 1)).toBe(0);
    expect(pickWeighted([1, 1], [true, true], () => Number.NaN)).toBe(0);
    expect(pickWeighted([], [], () => 0.5)).toBe(-1);
  });
});

describe('fallbackOrder', () => {
  test.prop([fc.array(fc.boolean(), { maxLength: 10 })], { numRuns: 200 })('keeps eligible indices in order, or all of them when none is', (eligible) => {
    const order = fallbackOrder(eligible);
    const expected = eligible.some(Boolean) ? eligible.flatMap((e, i) => (e ? [i] : [])) : eligible.map((_, i) => i);
    expect(order).toEqual(expected);
  });
});
