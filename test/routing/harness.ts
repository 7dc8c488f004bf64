// Runs a config through the REAL pipeline: checkConfig → emitRouter → new Function('rt', 'credentials', body)
// over a real RouterRuntime, real CircuitBreakers (MemoryBreakerStore, controllable clock) and a
// scripted Transport that answers with real UpstreamResponse objects over in-memory bodies. The
// scenario format is the reference evaluator's, so one table drives both implementations.
import type { ServerResponse } from 'node:http';
import { checkConfig } from '../../compiler/config/index.ts';
import { emitRouter } from '../../compiler/config/emit.ts';
import type { PlanLeaf, PlanNode, RoutePlan } from '../../compiler/config/route-plan.ts';
import { CircuitBreakers, MemoryBreakerStore } from '../../runtime/router/breaker.ts';
import type { Outcome } from '../../runtime/router/outcome.ts';
import { RouterRuntime, type CompiledRouter, type LeafTarget, type RoutedRequest, type Transport } from '../../runtime/router/router-runtime.ts';
import { UpstreamConnectionError, UpstreamDiscardedError, isConnectionError, isUpstreamTimeout } from '../../runtime/upstream/errors.ts';
import type { UpstreamResponse } from '../../runtime/upstream/types.ts';
import {
  DEFAULT_PATHNAME, RETRY_AFTER_CAP_MS, SCENARIO_NOW_MS, type RoutingRequest, type RoutingResult, type Scenario, type Scripted, type UpstreamScript,
} from '../reference/evaluate.ts';

/** One upstream body the transport handed out, and what became of it. */
export interface BodyRecord {
  path: string;
  attempt: number;
  status: number;
  discards: number;
  reads: number;
  forwards: number;
}

export interface CompiledRun extends RoutingResult {
  /** Every upstream response created during the request. */
  bodies: BodyRecord[];
  /** The bytes of the returned response (`<path>#<attempt>`), null for gateway errors. */
  body: string | null;
  /** The retry sleeps the runtime asked for, in ms (the harness sleeps 0 ms). */
  sleptMs: number[];
}

/** The runtime the emitted code receives as `rt`, recording every leaf handle the emitted code builds. */
class RecordingRuntime extends RouterRuntime {
  readonly built: PlanLeaf[] = [];
  recording = false;
  override leaf(fields: Partial<PlanLeaf> & { path: string }): LeafTarget {
    const target = super.leaf(fields);
    if (this.recording) this.built.push(target.plan);
    return target;
  }
}

/** A compiled router with its breakers and clock; route() may be called many times (breaker state persists). */
export class CompiledRouterHarness {
  readonly plan: RoutePlan;
  readonly source: string;
  readonly clock = { now: SCENARIO_NOW_MS };
  readonly breakers: CircuitBreakers;
  readonly runtime: RecordingRuntime;
  readonly #route: CompiledRouter;
  #script: UpstreamScript = {};
  #draws: readonly number[] = [];
  #drawn = 0;
  #jitterCalls = 0;
  #counts = new Map<string, number>();
  #tried: string[] = [];
  #bodies: BodyRecord[] = [];
  #sleeps: { ms: number; jittered: boolean }[] = [];
  #leafPlans = new Map<string, PlanLeaf>();

  constructor(config: unknown, configId = 'conformance') {
    const checked = checkConfig(config, configId);
    if (!checked.ok) throw new Error(`config does not check: ${JSON.stringify(checked.errors, null, 2)}`);
    this.plan = checked.plan;
    const emitted = emitRouter(this.plan);
    this.source = emitted.body;
    this.breakers = new CircuitBreakers(new MemoryBreakerStore(), () => this.clock.now);
    this.runtime = new RecordingRuntime({
      configId,
      transport: this.#transport,
      breakers: this.breakers,
      retry: {
        // Sleeps are instant; a real base delay keeps backoff drawing its jitter, which is how waits are told apart.
        baseDelayMs: 1_000,
        maxDelayMs: RETRY_AFTER_CAP_MS,
        sleep: async (ms) => {
          this.#sleeps.push({ ms, jittered: this.#jitterCalls > 0 });
          this.#jitterCalls = 0;
        },
        random: () => {
          this.#jitterCalls++;
          return 0.5;
        },
        now: () => this.clock.now,
      },
      random: () => {
        if (this.#draws.length === 0) throw new Error('scenario needs random draws for a loadbalance pick');
        return this.#draws[this.#drawn++ % this.#draws.length];
      },
      isConnectionError,
      isTimeoutError: isUpstreamTimeout,
    });
    this.runtime.recording = true;
    this.#route = new Function('rt', 'credentials', this.source)(this.runtime, emitted.credentials) as CompiledRouter;
    this.runtime.recording = false;
  }

  /** The leaf plans exactly as the emitted source rebuilt them from its literals. */
  get builtLeaves(): readonly PlanLeaf[] {
    return this.runtime.built;
  }

  /** Opens the circuit of a leaf through the public breaker API: failureThreshold connection errors. */
  openCircuit(path: string): void {
    const leaf = findLeaf(this.plan.root, path);
    if (!leaf || leaf.breaker === null) throw new Error(`${path} is not a leaf with a circuit breaker`);
    const key = this.runtime.leaf(leaf).breakerKey;
    for (let i = 0; i < Math.ceil(leaf.breaker.failureThreshold); i++) this.breakers.record(key, leaf.breaker, 'connection_error');
    if (!this.breakers.isOpen(key, leaf.breaker)) throw new Error(`could not open the circuit of ${path}`);
  }

  isOpen(path: string): boolean {
    const leaf = findLeaf(this.plan.root, path);
    if (!leaf) throw new Error(`no leaf at ${path}`);
    return this.breakers.isOpen(this.runtime.leaf(leaf).breakerKey, leaf.breaker);
  }

  async route(request: RoutingRequest = {}, upstream: UpstreamScript = {}, random: readonly number[] = []): Promise<CompiledRun> {
    this.#script = upstream;
    this.#draws = random;
    this.#drawn = 0;
    this.#jitterCalls = 0;
    this.#counts = new Map();
    this.#tried = [];
    this.#bodies = [];
    this.#sleeps = [];
    this.#leafPlans = new Map();
    const routed: RoutedRequest = {
      metadata: request.metadata ?? {},
      params: request.params,
      url: { pathname: request.pathname ?? DEFAULT_PATHNAME },
      signal: new AbortController().signal,
      timeoutOverrideMs: request.timeoutOverrideMs ?? null,
      headerProvider: null,
    };
    const outcome: Outcome = await this.#route(routed);
    const body = outcome.response ? (await outcome.response.readAll()).toString('utf8') : null;
    const leafPlan = this.#leafPlans.get(outcome.leafPath);
    return {
      tried: this.#tried,
      status: outcome.status,
      leafPath: outcome.leafPath,
      retries: outcome.retries,
      error: (outcome.error?.code ?? null) as RoutingResult['error'],
      waits: this.#sleeps.map((s) => (s.jittered ? 'backoff' : s.ms)),
      draws: this.#drawn,
      // What the leaf handle built by the emitted code carries, reduced to its own JSON properties.
      overrideParams: leafPlan ? (JSON.parse(JSON.stringify(leafPlan.overrideParams)) as Record<string, unknown>) : {},
      bodies: this.#bodies,
      body,
      sleptMs: this.#sleeps.map((s) => s.ms),
    };
  }

  readonly #transport: Transport = (req, leaf: LeafTarget, signal) => {
    const path = leaf.plan.path;
    const attempt = this.#counts.get(path) ?? 0;
    this.#counts.set(path, attempt + 1);
    this.#tried.push(path);
    this.#leafPlans.set(path, leaf.plan);
    const script = scriptedAnswer(this.#script, path, attempt);
    if (script === 'timeout') {
      if (leaf.plan.requestTimeoutMs === null && req.timeoutOverrideMs === null) {
        return Promise.reject(new Error(`${path} is scripted to time out but has no request timeout: the test would hang`));
      }
      // A provider that never answers: only the attempt's abort signal ends the wait.
      return new Promise<UpstreamResponse>((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    }
    if (script === 'connection error') return Promise.reject(new UpstreamConnectionError(`scripted: ${path} refused the connection`));
    const { status, headers } = typeof script === 'number' ? { status: script, headers: {} } : { status: script.status, headers: script.headers ?? {} };
    const record: BodyRecord = { path, attempt, status, discards: 0, reads: 0, forwards: 0 };
    this.#bodies.push(record);
    return Promise.resolve(memoryResponse(status, headers, Buffer.from(`${path}#${attempt}`), record));
  };
}

/** Runs one scenario on a fresh compiled router. */
export async function runCompiled(scenario: Scenario): Promise<CompiledRun> {
  const harness = new CompiledRouterHarness(scenario.config);
  for (const path of scenario.open ?? []) harness.openCircuit(path);
  return harness.route(scenario.request, scenario.upstream, scenario.random);
}

function scriptedAnswer(upstream: UpstreamScript, path: string, attempt: number): Scripted {
  const list = Object.hasOwn(upstream, path) ? upstream[path] : undefined;
  if (!list || list.length === 0) return 200;
  return list[Math.min(attempt, list.length - 1)];
}

/** An UpstreamResponse over an in-memory body that counts what is done with it. */
export function memoryResponse(status: number, headers: Record<string, string>, body: Buffer, record: BodyRecord): UpstreamResponse {
  let done = false;
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const take = (): void => {
    if (record.discards > 0) throw new UpstreamDiscardedError(`body of ${record.path}#${record.attempt} was discarded`);
    if (done) throw new Error(`body of ${record.path}#${record.attempt} was consumed twice`);
    done = true;
  };
  return {
    status,
    headers: lower,
    async forwardTo(res: ServerResponse) {
      take();
      record.forwards++;
      await new Promise<void>((resolve) => res.end(body, resolve));
    },
    async readAll() {
      take();
      record.reads++;
      return Buffer.from(body);
    },
    discard() {
      record.discards++;
    },
  };
}

export function findLeaf(node: PlanNode, path: string): PlanLeaf | null {
  if (node.kind === 'leaf') return node.path === path ? node : null;
  for (const child of node.targets) {
    const found = findLeaf(child, path);
    if (found) return found;
  }
  return null;
}
