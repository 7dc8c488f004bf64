// Circuit breakers through the compiled router, model-based (fc.commands): sequences of requests
// with scripted failures and clock advances. Before each request the model says which circuits are
// open; the reference evaluator turns that into the expected skip decisions; the compiled router,
// whose breakers saw only its own traffic, must decide the same; then the model learns from each try.
import { describe, expect } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import { evaluate, leavesOf, scripted, type LeafInfo, type RoutingRequest, type Scripted, type UpstreamScript } from '../reference/evaluate.ts';
import { configArb, drawsArb, propertyTimeoutMs, requestArb, runs, scriptArb, type Raw } from './arbitraries.ts';
import { CompiledRouterHarness } from './harness.ts';

// ARCHITECTURE §5 as a state machine: failures in a row open the circuit for the cooldown; after it
// one trial decides (success closes, failure re-opens for a full cooldown). Decisions beyond the
// text, shared with runtime/router/breaker.ts: a success closes from any state; a failure while
// still open (a target tried anyway) does not extend the cooldown; a timed-out attempt counts as a
// failure like a connection error (no response arrived).
type Circuit = { tag: 'closed'; failures: number } | { tag: 'open'; until: number };

class Model {
  now: number;
  readonly circuits = new Map<string, Circuit>();
  readonly leaves: Map<string, LeafInfo>;
  opened = 0;

  constructor(leaves: LeafInfo[], now: number) {
    this.leaves = new Map(leaves.map((l) => [l.path, l]));
    this.now = now;
  }

  isOpen(path: string): boolean {
    const c = this.circuits.get(path);
    return c !== undefined && c.tag === 'open' && this.now < c.until;
  }

  openPaths(): string[] {
    return [...this.leaves.values()].filter((l) => l.breaker !== null && this.isOpen(l.path)).map((l) => l.path);
  }

  record(path: string, answer: Scripted): void {
    const breaker = this.leaves.get(path)!.breaker;
    if (breaker === null) return;
    const failed =
      answer === 'connection error' ||
      answer === 'timeout' ||
      (() => {
        const status = typeof answer === 'number' ? answer : answer.status;
        return breaker.failureStatusCodes === null ? status >= 500 : breaker.failureStatusCodes.includes(status);
      })();
    const c = this.circuits.get(path) ?? { tag: 'closed', failures: 0 };
    if (!failed) {
      this.circuits.set(path, { tag: 'closed', failures: 0 });
    } else if (c.tag === 'closed') {
      const failures = c.failures + 1;
      const opens = failures >= breaker.failureThreshold;
      if (opens) this.opened++;
      this.circuits.set(path, opens ? { tag: 'open', until: this.now + breaker.cooldownMs } : { tag: 'closed', failures });
    } else if (this.now >= c.until) {
      this.circuits.set(path, { tag: 'open', until: this.now + breaker.cooldownMs });
    }
  }
}

interface Real {
  config: Raw;
  harness: CompiledRouterHarness;
  stats: { sendsWithOpen: number };
}

class Advance implements fc.AsyncCommand<Model, Real> {
  readonly ms: number;
  constructor(ms: number) {
    this.ms = ms;
  }
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    model.now += this.ms;
    real.harness.clock.now += this.ms;
  }
  toString = (): string => `advance(${this.ms})`;
}

class Send implements fc.AsyncCommand<Model, Real> {
  readonly request: RoutingRequest;
  readonly upstream: UpstreamScript;
  readonly random: number[];
  constructor(request: RoutingRequest, upstream: UpstreamScript, random: number[]) {
    this.request = request;
    this.upstream = upstream;
    this.random = random;
  }
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    const open = model.openPaths();
    if (open.length > 0) real.stats.sendsWithOpen++;
    const breakerPaths = [...model.leaves.values()].filter((l) => l.breaker !== null).map((l) => l.path);
    expect(breakerPaths.filter((path) => real.harness.isOpen(path)), 'open circuits before the request').toEqual(open);
    const expected = evaluate({ config: real.config, request: this.request, upstream: this.upstream, open, random: this.random });
    const actual = await real.harness.route(this.request, this.upstream, this.random);
    expect({ tried: actual.tried, leafPath: actual.leafPath, status: actual.status }).toEqual({
      tried: expected.tried,
      leafPath: expected.leafPath,
      status: expected.status,
    });
    const attempts = new Map<string, number>();
    for (const path of expected.tried) {
      const k = attempts.get(path) ?? 0;
      attempts.set(path, k + 1);
      model.record(path, scripted(this.upstream, path, k));
    }
    for (const leaf of model.leaves.values()) {
      if (leaf.breaker !== null) expect(real.harness.isOpen(leaf.path), `circuit of ${leaf.path} after the request`).toBe(model.isOpen(leaf.path));
    }
  }
  toString = (): string => `send(${JSON.stringify({ request: this.request, upstream: this.upstream, random: this.random })})`;
}

const ROOT_BREAKER = { failure_threshold: 2, cooldown_interval: 30_000 };

const breakerScenario = configArb({ breakers: 'many', timeouts: false, maxDepth: 2 })
  .map((config) => (Object.hasOwn(config, 'cb_config') ? config : { ...config, cb_config: ROOT_BREAKER }))
  .chain((config) => {
    const leaves = leavesOf(config);
    const send = fc
      .tuple(requestArb, drawsArb)
      .chain(([request, random]) => scriptArb(leaves, request, { timeouts: false }).map((upstream) => new Send(request, upstream, random)));
    const advance = fc.constantFrom(1_000, 15_000, 29_999, 30_000, 45_000).map((ms) => new Advance(ms));
    return fc.tuple(
      fc.constant(config),
      fc.commands([send, send, advance], { maxCommands: 30, size: 'large' }),
    );
  });

describe('circuit breakers through the compiled router', () => {
  const totals = { runs: 0, sendsWithOpen: 0 };

  test.prop([breakerScenario], { numRuns: runs(150) })(
    'skip decisions match the model over request sequences',
    async ([config, commands]) => {
      const harness = new CompiledRouterHarness(config);
      const stats = { sendsWithOpen: 0 };
      await fc.asyncModelRun(() => ({ model: new Model(leavesOf(config), harness.clock.now), real: { config, harness, stats } }), commands);
      totals.runs++;
      totals.sendsWithOpen += stats.sendsWithOpen;
    },
    propertyTimeoutMs(),
  );

  test('the sequences do reach open circuits', () => {
    // Guards the generator: a model test in which circuits never open would prove nothing.
    expect(totals.runs).toBeGreaterThan(0);
    expect(totals.sendsWithOpen / totals.runs).toBeGreaterThan(0.5);
  });
});
