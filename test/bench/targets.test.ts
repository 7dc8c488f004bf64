// The bench's target rows are arithmetic over one run's numbers: checked here on made-up runs.
import { expect, it } from 'vitest';
import { checkTargets, type ScenarioNumbers } from '../../bench/targets.ts';

function scenario(id: string, cpuMicrosPerRequest: number): ScenarioNumbers {
  return { id, label: id, via: 'gateway', streaming: false, p50Ms: 0.2, cpuMicrosPerRequest, requestsPerSecond: 10_000, ratioToFloor: 0.5, addedP50Ms: null, floorAddedP50Ms: null, peakRssMB: 100 };
}

const row = (checks: ReturnType<typeof checkTargets>, prefix: string) => checks.find((c) => c.target.startsWith(prefix));

it('over HTTP, the guarded and the refresh routes are checked by the CPU they add to single', () => {
  const checks = checkTargets([scenario('single', 50), scenario('guarded', 78.5), scenario('cache-refresh', 66)], null, null);
  expect(row(checks, 'guardrails: gateway CPU three cheap checks on input and output add (over HTTP)')).toMatchObject({ value: '28.5 µs/req', pass: true, margin: '+1.5 µs' });
  expect(row(checks, 'cache: gateway CPU the miss path adds, every answer stored (over HTTP)')).toMatchObject({ value: '16.0 µs/req', pass: false, margin: '-1.0 µs' });
});

it('a row is left out when its route or single did not run', () => {
  const checks = checkTargets([scenario('guarded', 78.5)], null, null);
  expect(row(checks, 'guardrails: gateway CPU')).toBeUndefined();
  expect(row(checks, 'cache: gateway CPU')).toBeUndefined();
});
