import { describe, expect } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import type { BreakerPlan } from '../../compiler/config/route-plan.ts';
import { CircuitBreakers, MemoryBreakerStore } from '../../runtime/router/breaker.ts';

type Status = number | 'connection_error';

// The model: the spec's state machine spelled out as tagged states, independent of breaker.ts.
type Circuit = { tag: 'closed'; failures: number } | { tag: 'open'; until: number } | { tag: 'half-open'; trialAt: number | null };

class Model {
  now = 1_700_000_000_000;
  readonly circuits = new Map<string, Circuit>();
  readonly plans: Record<string, BreakerPlan | null>;

  constructor(plans: Record<string, BreakerPlan | null>) {
    this.plans = plans;
  }

  circuit(key: string): Circuit {
    const c = this.circuits.get(key) ?? { tag: 'closed', failures: 0 };
    if (c.tag === 'open' && this.now >= c.until) return { tag: 'half-open', trialAt: null };
    return c;
  }

  trialLive(c: Circuit, plan: BreakerPlan): boolean {
    return c.tag === 'half-open' && c.trialAt !== null && this.now - c.trialAt < plan.cooldownMs;
  }

  isOpen(key: string): boolean {
    const plan = this.plans[key];
    if (plan === null) return false;
    const c = this.circuit(key);
    return c.tag === 'open' || this.trialLive(c, plan);
  }

  canAttempt(key: string): boolean {
    if (this.isOpen(key)) return false;
    const c = this.circuit(key);
    if (c.tag === 'half-open') this.circuits.set(key, { tag: 'half-open', trialAt: this.now });
    return true;
  }

  record(key: string, status: Status): void {
    const plan = this.plans[key];
    if (plan === null) return;
    const failed = status === 'connection_error' || (plan.failureStatusCodes === null ? status >= 500 : plan.failureStatusCodes.includes(status));
    const c = this.circuit(key);
    if (!failed) {
      this.circuits.set(key, { tag: 'closed', failures: 0 });
    } else if (c.tag === 'closed') {
      const failures = c.failures + 1;
      this.circuits.set(key, failures >= plan.failureThreshold ? { tag: 'open', until: this.now + plan.cooldownMs } : { tag: 'closed', failures });
    } else if (c.tag === 'half-open') {
      this.circuits.set(key, { tag: 'open', until: this.now + plan.cooldownMs });
    }
  }
}

interface Real {
  breakers: CircuitBreakers;
  clock: { now: number };
}

class Advance implements fc.Command<Model, Real> {
  readonly ms: number;
  constructor(ms: number) {
    this.ms = ms;
  }
  check = (): boolean => true;
  run(model: Model, real: Real): void {
    model.now += this.ms;
    real.clock.now += this.ms;
  }
  toString = (): string => `advance(${this.ms})`;
}

class CanAttempt implements fc.Command<Model, Real> {
  readonly key: string;
  constructor(key: string) {
    this.key = key;
  }
  check = (): boolean => true;
  run(model: Model, real: Real): void {
    expect(real.breakers.canAttempt(this.key, model.plans[this.key])).toBe(model.canAttempt(this.key));
  }
  toString = (): string => `canAttempt(${this.key})`;
}

class IsOpen implements fc.Command<Model, Real> {
  readonly key: string;
  constructor(key: string) {
    this.key = key;
  }
  check = (): boolean => true;
  run(model: Model, real: Real): void {
    expect(real.breakers.isOpen(this.key, model.plans[this.key])).toBe(model.isOpen(this.key));
  }
  toString = (): string => `isOpen(${this.key})`;
}

class RecordResult implements fc.Command<Model, Real> {
  readonly key: string;
  readonly status: Status;
  constructor(key: string, status: Status) {
    this.key = key;
    this.status = status;
  }
  check = (): boolean => true;
  run(model: Model, real: Real): void {
    real.breakers.record(this.key, model.plans[this.key], this.status);
    model.record(this.key, this.status);
    expect(real.breakers.isOpen(this.key, model.plans[this.key])).toBe(model.isOpen(this.key));
  }
  toString = (): string => `record(${this.key}, ${this.status})`;
}

const KEYS = ['a', 'b', 'none'];
const COOLDOWN_CHOICES = [30_000, 45_000];

const planArb: fc.Arbitrary<BreakerPlan> = fc.record({
  failureThreshold: fc.integer({ min: 1, max: 4 }),
  cooldownMs: fc.constantFrom(...COOLDOWN_CHOICES),
  failureStatusCodes: fc.option(fc.subarray([429, 500, 502, 503]), { nil: null }),
});

const keyArb = fc.constantFrom(...KEYS);
// Failures outnumber successes so that circuits actually open and the open and half-open
// transitions get exercised, not just the closed count.
const statusArb: fc.Arbitrary<Status> = fc.oneof(
  { arbitrary: fc.constantFrom<Status>(500, 502, 503, 504, 'connection_error'), weight: 4 },
  { arbitrary: fc.constantFrom<Status>(200, 201, 404, 429), weight: 1 },
);
const commandsArb = fc.commands(
  [
    fc.constantFrom(1, 1_000, 29_999, 30_000, 15_000, 45_000, 100_000).map((ms) => new Advance(ms)),
    keyArb.map((key) => new CanAttempt(key)),
    keyArb.map((key) => new IsOpen(key)),
    fc.tuple(keyArb, statusArb).map(([key, status]) => new RecordResult(key, status)),
  ],
  { maxCommands: 60, size: 'large' },
);

describe('CircuitBreakers', () => {
  test.prop([planArb, planArb, commandsArb], { numRuns: 300 })('behaves like the model state machine', (planA, planB, commands) => {
    const plans = { a: planA, b: planB, none: null };
    const clock = { now: 1_700_000_000_000 };
    fc.modelRun(() => ({ model: new Model(plans), real: { breakers: new CircuitBreakers(new MemoryBreakerStore(), () => clock.now), clock } }), commands);
  });

  const plan: BreakerPlan = { failureThreshold: 3, cooldownMs: 30_000, failureStatusCodes: null };

  test('opens at the threshold, lets one trial through after the cooldown, and closes on its success', () => {
    const clock = { now: 0 };
    const breakers = new CircuitBreakers(new MemoryBreakerStore(), () => clock.now);
    breakers.record('t', plan, 500);
    breakers.record('t', plan, 'connection_error');
    expect(breakers.canAttempt('t', plan)).toBe(true);
    breakers.record('t', plan, 503);
    expect(breakers.isOpen('t', plan)).toBe(true);
    expect(breakers.canAttempt('t', plan)).toBe(false);
    clock.now = 29_999;
    expect(breakers.canAttempt('t', plan)).toBe(false);
    clock.now = 30_000;
    expect(breakers.isOpen('t', plan)).toBe(false);
    expect(breakers.canAttempt('t', plan)).toBe(true);
    expect(breakers.canAttempt('t', plan)).toBe(false);
    expect(breakers.isOpen('t', plan)).toBe(true);
    breakers.record('t', plan, 200);
    expect(breakers.isOpen('t', plan)).toBe(false);
    breakers.record('t', plan, 500);
    breakers.record('t', plan, 500);
    expect(breakers.canAttempt('t', plan)).toBe(true);
  });

  test('a failed trial re-opens the circuit for another full cooldown', () => {
    const clock = { now: 0 };
    const breakers = new CircuitBreakers(new MemoryBreakerStore(), () => clock.now);
    for (let i = 0; i < 3; i++) breakers.record('t', plan, 502);
    clock.now = 30_000;
    expect(breakers.canAttempt('t', plan)).toBe(true);
    clock.now = 31_000;
    breakers.record('t', plan, 502);
    clock.now = 60_999;
    expect(breakers.canAttempt('t', plan)).toBe(false);
    clock.now = 61_000;
    expect(breakers.canAttempt('t', plan)).toBe(true);
  });

  test('successes reset the consecutive count; non-listed statuses are successes', () => {
    const listed: BreakerPlan = { failureThreshold: 2, cooldownMs: 30_000, failureStatusCodes: [429] };
    const breakers = new CircuitBreakers(new MemoryBreakerStore(), () => 0);
    breakers.record('t', listed, 429);
    breakers.record('t', listed, 500);
    breakers.record('t', listed, 429);
    expect(breakers.isOpen('t', listed)).toBe(false);
    breakers.record('t', listed, 429);
    expect(breakers.isOpen('t', listed)).toBe(true);
  });

  test('a null plan is never open and stores nothing', () => {
    const store = new MemoryBreakerStore();
    const breakers = new CircuitBreakers(store, () => 0);
    for (let i = 0; i < 10; i++) breakers.record('t', null, 'connection_error');
    expect(breakers.canAttempt('t', null)).toBe(true);
    expect(breakers.isOpen('t', null)).toBe(false);
    expect(store.size).toBe(0);
  });

  test('a failure recorded while open does not extend the cooldown', () => {
    const clock = { now: 0 };
    const breakers = new CircuitBreakers(new MemoryBreakerStore(), () => clock.now);
    for (let i = 0; i < 3; i++) breakers.record('t', plan, 500);
    clock.now = 20_000;
    breakers.record('t', plan, 'connection_error');
    clock.now = 30_000;
    expect(breakers.canAttempt('t', plan)).toBe(true);
  });

  test('a trial that never reports is presumed lost after a cooldown', () => {
    const clock = { now: 0 };
    const breakers = new CircuitBreakers(new MemoryBreakerStore(), () => clock.now);
    for (let i = 0; i < 3; i++) breakers.record('t', plan, 500);
    clock.now = 30_000;
    expect(breakers.canAttempt('t', plan)).toBe(true);
    clock.now = 59_999;
    expect(breakers.canAttempt('t', plan)).toBe(false);
    clock.now = 60_000;
    expect(breakers.canAttempt('t', plan)).toBe(true);
  });
});

describe('MemoryBreakerStore', () => {
  test('keeps at most maxEntries, dropping the least recently written', () => {
    const store = new MemoryBreakerStore(2);
    const state = { consecutiveFailures: 1, openUntil: null, trialStartedAt: null };
    store.set('a', state);
    store.set('b', state);
    store.set('a', { ...state, consecutiveFailures: 2 });
    store.set('c', state);
    expect(store.size).toBe(2);
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')?.consecutiveFailures).toBe(2);
    expect(store.get('c')).toEqual(state);
  });

  test.prop([fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 600 })])('past the bound keeps the most recently written keys, and never more than the bound', (writes) => {
    const max = 100;
    const store = new MemoryBreakerStore(max);
    const state = { consecutiveFailures: 1, openUntil: null, trialStartedAt: null };
    for (const key of writes) store.set(`t${key}`, state);
    const recency = [...new Set([...writes].reverse())];
    expect(store.size).toBeLessThanOrEqual(max);
    // At the bound a hundredth goes at once: at least 99 of the newest are kept, and all kept are the newest.
    const kept = recency.filter((key) => store.get(`t${key}`) !== undefined);
    expect(kept).toEqual(recency.slice(0, kept.length));
    expect(kept.length).toBe(recency.length <= max ? recency.length : store.size);
    if (recency.length > max) expect(kept.length).toBeGreaterThanOrEqual(max - 1);
  });
});
