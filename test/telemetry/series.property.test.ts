// The hot-path series (runtime/telemetry/series.ts) expose exactly what prom-client's own Counter and
// Histogram expose for the same observations: prom-client is the reference.
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { Counter, Histogram, Registry } from 'prom-client';
import { CounterSeries, HistogramSeries } from '../../runtime/telemetry/series.ts';

const LABEL = fc.constantFrom('a', 'b', 'gpt-4o', 'with "quote"', 'back\\slash', 'new\nline');
const BUCKETS = [0.005, 0.01, 0.1, 1, 10];
const observation = fc.record({ x: LABEL, y: LABEL, value: fc.oneof(fc.double({ min: 0, max: 20, noNaN: true }), fc.constantFrom(0, 0.005, 0.01, 1, 10, 10.5)) });

describe('metric series', () => {
  test.prop([fc.array(observation, { maxLength: 60 })], { numRuns: 150 })('a counter reads as prom-client\'s', async (observations) => {
    const ours = new Registry();
    const theirs = new Registry();
    const series = new CounterSeries('things_total', 'Things.', ['x', 'y'] as const, ours);
    const reference = new Counter({ name: 'things_total', help: 'Things.', labelNames: ['x', 'y'], registers: [theirs] });
    for (const { x, y, value } of observations) {
      series.child({ x, y }).inc(value);
      reference.labels(x, y).inc(value);
    }
    expect(sorted(await ours.metrics())).toEqual(sorted(await theirs.metrics()));
  });

  test.prop([fc.array(observation, { maxLength: 60 })], { numRuns: 150 })('a histogram reads as prom-client\'s', async (observations) => {
    const ours = new Registry();
    const theirs = new Registry();
    const series = new HistogramSeries('took_seconds', 'Time.', ['x', 'y'] as const, BUCKETS, ours);
    const reference = new Histogram({ name: 'took_seconds', help: 'Time.', labelNames: ['x', 'y'], buckets: BUCKETS, registers: [theirs] });
    for (const { x, y, value } of observations) {
      series.child({ x, y }).observe(value);
      reference.labels(x, y).observe(value);
    }
    expect(sorted(await ours.metrics())).toEqual(sorted(await theirs.metrics()));
  });

  test.prop([fc.nat({ max: 20 })], { numRuns: 20 })('a counter without labels reads 0 before its first increment, then the sum', async (n) => {
    const registry = new Registry();
    const child = new CounterSeries('events_total', 'Events.', [], registry).child({});
    expect(await registry.metrics()).toContain('\nevents_total 0\n');
    for (let i = 0; i < n; i++) child.inc();
    expect(await registry.metrics()).toContain(`\nevents_total ${n}\n`);
  });
});

/** The exposition's lines, sorted: the order of label sets is not part of the format. */
function sorted(text: string): string[] {
  return text.split('\n').filter((line) => line !== '').sort();
}
