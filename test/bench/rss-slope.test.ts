// The soak's "still growing" rule (bench/soak.ts) on two real runs of `npm run soak -- --minutes 4`:
// the second half of one where the log writer's statement cache still grew, and of one after the fix.
import { expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { rssSlopePerMinute } from '../../bench/rss-slope.ts';

const series = (start: number, rss: number[]) => rss.map((rssMB, i) => ({ seconds: start + i * 10, rssMB }));

it('reads the growing run as growing and the settled one as flat, through the noise of single samples', () => {
  const growing = series(120, [172.3, 174.3, 175.7, 177.0, 178.0, 179.2, 179.2, 180.5, 182.1, 175.2, 184.9, 185.4, 186.0]);
  const settled = series(120, [148.9, 148.9, 148.9, 148.9, 148.9, 148.9, 148.9, 148.9, 148.9, 148.9, 148.9, 148.9, 149.1]);
  expect(rssSlopePerMinute(growing)).toBeGreaterThan(4);
  expect(rssSlopePerMinute(settled)).toBeLessThan(1);
});

test.prop([fc.double({ min: -20, max: 20, noNaN: true }), fc.double({ min: 50, max: 500, noNaN: true }), fc.integer({ min: 2, max: 60 })])(
  'recovers the slope of a straight line',
  (perMinute, start, count) => {
    const line = Array.from({ length: count }, (_, i) => ({ seconds: i * 10, rssMB: start + (perMinute * i * 10) / 60 }));
    expect(rssSlopePerMinute(line)).toBeCloseTo(perMinute, 6);
  },
);
