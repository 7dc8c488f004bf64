// Records of requests no key vouched for are written at a bounded rate (runtime/telemetry/
// keyless-records.ts): over any run of arrivals, what is written never passes the burst plus the
// rate times the time gone by, and a steady trickle under the rate is never dropped. The wiring
// through a real gateway: test/e2e/logs.e2e.test.ts.
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { KeylessRecordBudget } from '../../runtime/telemetry/keyless-records.ts';

const runs = { numRuns: 200, interruptAfterTimeLimit: 5000 };

test.prop([fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 2000 }), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 100 })], runs)(
  'writes at most the burst plus the rate times the time gone by, and counts every other one dropped',
  (gaps, perSecond, burst) => {
    let now = 1_000_000;
    const budget = new KeylessRecordBudget(perSecond, burst, () => now);
    let written = 0;
    for (const gap of gaps) {
      now += gap;
      if (budget.take()) written++;
    }
    const elapsedSeconds = (now - 1_000_000) / 1000;
    expect(written).toBeLessThanOrEqual(burst + perSecond * elapsedSeconds + 1e-9);
    expect(written + budget.dropped).toBe(gaps.length);
  },
);

test.prop([fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 500 })], runs)('never drops a trickle at or under the rate', (perSecond, count) => {
  let now = 0;
  const budget = new KeylessRecordBudget(perSecond, 1, () => now);
  for (let i = 0; i < count; i++) {
    expect(budget.take()).toBe(true);
    now += Math.ceil(1000 / perSecond);
  }
  expect(budget.dropped).toBe(0);
});

test.prop([fc.integer({ min: 1, max: 1000 })], runs)('takes a whole burst at once, then one more only as time goes by', (burst) => {
  let now = 0;
  const budget = new KeylessRecordBudget(10, burst, () => now);
  for (let i = 0; i < burst; i++) expect(budget.take()).toBe(true);
  expect(budget.take()).toBe(false);
  now += 100;
  expect(budget.take()).toBe(true);
  expect(budget.take()).toBe(false);
  expect(budget.dropped).toBe(2);
});
