// A dry run of one request through a config's compiled router: the same emitted router and the
// same RouterRuntime (strategies, conditions, retries with backoff, per-attempt timeouts, circuit
// breakers) as a live request, with the upstream call replaced by scripted outcomes. No provider is
// called, no credential is resolved or sent, and nothing is logged. Retry waits are recorded instead
// of slept, and a seed makes loadbalance picks and backoff jitter repeatable.
//
// Routing is what is simulated: the request-phase and attempt-phase stages (cache, hooks and
// guardrails, prompt rendering, rate and usage limits) do not run; the report names the ones this
// config would have run, so nobody mistakes the dry run for the whole request.
import { ROUTES } from '../../generated/routes.ts';
import simulateRequestSchema from '../../schema/requests/config-simulate.json' with { type: 'json' };
import type { SimulatedAttempt, Simulation } from '../../generated/types.ts';
import { leavesOf, type PlanNode, type RoutePlan } from '../core/plan.ts';
import { GATEWAY_ERRORS, GatewayError } from '../core/errors.ts';
import {
  CACHE_STATUS_HEADER, METADATA_HEADER, PROVIDER_HEADER, refuseUnknownGatewayHeader, TRACE_ID_HEADER,
} from '../core/gateway-headers.ts';
import { CACHE_STATUS, newRequestRecord } from '../core/request-record.ts';
import { detachedExchange } from '../jobs/detached-context.ts';
import { buildRouter, defaultServices } from '../inference/routers.ts';
import { putOutcomeHeaders } from '../inference/send-outcome.ts';
import type { Outcome } from '../router/outcome.ts';
import type { InferenceSettings } from '../inference/settings.ts';
import type { InferenceTransport } from '../inference/transport.ts';
import { CircuitBreakers, MemoryBreakerStore } from '../router/breaker.ts';
import { breakerKeyFor, breakerKeyOf, type LeafTarget, readsRoutingHeaders, type RoutedRequest } from '../router/router-runtime.ts';
import type { Exchange } from '../pipeline/exchange.ts';
import { UpstreamConnectionError, UpstreamTimeoutError } from '../upstream/errors.ts';
import type { UpstreamResponse } from '../upstream/types.ts';
import { allNodes, leafPathOf, type OutcomeScript, scriptedOutcome, type ScriptedOutcome } from './outcome-script.ts';
import { seededRandom } from './seeded-random.ts';
import { RETRY_AFTER_HEADER } from '../core/retry-after-headers.ts';

const REQUEST_FIELDS = simulateRequestSchema.properties;
/** Endpoints with a JSON body that a simulation can stand for (the request schema's list, for the CLI too). */
export const SIMULATED_PATHS: readonly string[] = REQUEST_FIELDS.path.enum;
export const DEFAULT_SIMULATED_PATH: string = REQUEST_FIELDS.path.default;
/** The seed when none is given: a simulation is repeatable unless asked otherwise. */
export const DEFAULT_SEED: number = REQUEST_FIELDS.seed.default;
const SIMULATED_TRACE_ID = 'simulated';

export interface SimulationInput {
  /** The endpoint the request is for; one of SIMULATED_PATHS. */
  path: string;
  /** The JSON body a client would send. */
  body: unknown;
  /** x-gateway-* headers and Authorization as the client would send them (metadata, request timeout, provider, …). */
  headers: Readonly<Record<string, string>>;
  outcomes: OutcomeScript;
  /** Leaf paths (or unique names) whose circuit is open when the request starts. */
  openCircuits: readonly string[];
  seed: number;
}

export interface SimulationDeps {
  /** The real transport: which provider a leaf resolves to (virtual keys and slugs included). It is never asked to call. */
  transport: Pick<InferenceTransport, 'providerOf'>;
  settings: InferenceSettings;
}

/** The report's shape is the API's (schema/resources/simulation.json). */
export type SimulationReport = Simulation;
type SimulatedResult = SimulatedAttempt['result'];

export async function simulate(plan: RoutePlan, input: SimulationInput, deps: SimulationDeps, pickRandom: () => number = seededRandom(input.seed)): Promise<SimulationReport> {
  const route = ROUTES.find((r) => r.method === 'POST' && r.path === input.path);
  if (route === undefined || !SIMULATED_PATHS.includes(input.path)) {
    throw new GatewayError('invalid_simulation', `A simulation is for one of ${SIMULATED_PATHS.join(', ')}, not ${JSON.stringify(input.path)}.`, 'path');
  }
  // As the server refuses them: a misspelt option must not simulate as if it had been left out.
  for (const name of Object.keys(input.headers)) refuseUnknownGatewayHeader(name);
  const attempts: SimulatedAttempt[] = [];
  const tries = new Map<string, number>();
  const breakers = new CircuitBreakers(new MemoryBreakerStore(), Date.now);
  const jitter = seededRandom(input.seed ^ 0x9e3779b9);

  const providerOf = (x: Exchange, leaf: LeafTarget): string => deps.transport.providerOf(x, leaf) || storedKeyLabel(leaf.plan.virtualKey ?? x.options.virtualKey);
  const call = (x: Exchange, leaf: LeafTarget): Promise<UpstreamResponse> => {
    const plan = leaf.plan;
    const attempt = tries.get(plan.path) ?? 0;
    tries.set(plan.path, attempt + 1);
    const outcome = scriptedOutcome(input.outcomes, plan.path, attempt);
    const provider = providerOf(x, leaf);
    const tried: SimulatedAttempt = { target: plan.path, name: plan.name, provider, model: modelSent(input.body, plan.overrideParams), result: resultOf(outcome), then: 'answer', backoff_ms: null };
    attempts.push(tried);
    // The same refusal the real transport makes before it would call anyone.
    if (provider === '') {
      const error = new GatewayError('missing_provider', undefined, PROVIDER_HEADER);
      tried.result = { status: error.status, error: error.code };
      return Promise.reject(error);
    }
    if (outcome.kind === 'timeout') return Promise.reject(new UpstreamTimeoutError(`simulated: ${plan.path} did not answer`));
    if (outcome.kind === 'unreachable') return Promise.reject(new UpstreamConnectionError(`simulated: ${plan.path} refused the connection`));
    return Promise.resolve(scriptedResponse(outcome.status, outcome.retryAfterSeconds));
  };

  const router = buildRouter(plan, {
    transport: { call, providerOf },
    breakers,
    settings: deps.settings,
    services: defaultServices(),
    stages: [],
    random: pickRandom,
    retryClock: {
      sleep: (ms) => {
        const last = attempts.at(-1);
        if (last !== undefined) last.backoff_ms = Math.round(ms);
        return Promise.resolve();
      },
      random: jitter,
      now: Date.now,
    },
  });
  const headers: Record<string, string> = { ...input.headers, 'content-type': 'application/json' };
  const record = newRequestRecord(SIMULATED_TRACE_ID, 'POST', input.path);
  const x = detachedExchange({ source: 'http', headers, route, body: input.body, router, record, caller: null, signal: new AbortController().signal });
  // The circuit this request would meet: a target read from the routing headers has one per target they name.
  for (const target of input.openCircuits) openCircuit(plan, leafPathOf(plan, target, 'open_circuits'), breakers, x);
  let outcome;
  try {
    // A route whose body is always checked is checked before routing, as the server does.
    if (route.validateBody === 'always') await x.json();
    outcome = await router.run(x);
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    outcome = { status: error.status, leafPath: plan.root.path, provider: '', retries: 0, response: null, error };
  }
  outcome.response?.discard();
  attempts.forEach((tried, i) => {
    const next = attempts[i + 1];
    tried.then = next === undefined ? 'answer' : next.target === tried.target ? 'retry' : 'fallback';
  });
  const error = outcome.error === null ? null : { code: outcome.error.code, message: outcome.error.message };
  return {
    config_id: plan.configId,
    path: input.path,
    seed: input.seed,
    attempts,
    answer: { status: outcome.status, target: outcome.leafPath, provider: outcome.provider, retries: outcome.retries, error },
    headers: simulatedHeaders(input.headers[TRACE_ID_HEADER] ?? SIMULATED_TRACE_ID, outcome, plan),
    not_simulated: notSimulated(plan),
  };
}

/** The metadata header as a simulation input carries it. */
export function metadataHeader(metadata: Readonly<Record<string, string>>): Record<string, string> {
  return { [METADATA_HEADER]: JSON.stringify(metadata) };
}

/** A virtual key a simulation without the gateway's store cannot resolve: named, not refused (serve resolves it). */
function storedKeyLabel(virtualKey: string | null): string {
  return virtualKey === null ? '' : `virtual-key:${virtualKey}`;
}

function resultOf(outcome: ScriptedOutcome): SimulatedResult {
  if (outcome.kind === 'timeout') return { status: GATEWAY_ERRORS.request_timeout.status, error: 'request_timeout' };
  if (outcome.kind === 'unreachable') return { status: GATEWAY_ERRORS.provider_unreachable.status, error: 'provider_unreachable' };
  return { status: outcome.status, error: null };
}

function modelSent(body: unknown, overrides: Record<string, unknown>): string | null {
  const model = Object.hasOwn(overrides, 'model') ? overrides.model : typeof body === 'object' && body !== null ? (body as Record<string, unknown>).model : undefined;
  return typeof model === 'string' ? model : null;
}

/** Opens a leaf's circuit the way real failures would: failure_threshold connection errors. */
function openCircuit(plan: RoutePlan, path: string, breakers: CircuitBreakers, req: RoutedRequest): void {
  const leaf = leavesOf(plan.root).find((l) => l.path === path)!;
  if (leaf.breaker === null) throw new GatewayError('invalid_simulation', `${path} has no cb_config (own or inherited): its circuit cannot open.`, 'open_circuits');
  const key = breakerKeyFor({ breakerKey: breakerKeyOf(plan.configId, path), readsRoutingHeaders: readsRoutingHeaders(leaf) }, req);
  for (let i = 0; i < Math.ceil(leaf.breaker.failureThreshold); i++) breakers.record(key, leaf.breaker, 'connection_error');
}

/** The gateway headers the client would see; the cache status of a first request, since no stage runs here. */
function simulatedHeaders(traceId: string, outcome: Outcome, plan: RoutePlan): Record<string, string> {
  const headers: Record<string, string> = { [TRACE_ID_HEADER]: traceId };
  putOutcomeHeaders(headers, outcome);
  headers[CACHE_STATUS_HEADER] = cacheStatus(plan.root);
  return headers;
}

/** What a first request reports: a miss of the route's cache, or DISABLED without one. */
function cacheStatus(root: PlanNode): string {
  const cache = allNodes(root).find((node) => node.cache !== null)?.cache;
  if (cache === undefined || cache === null) return CACHE_STATUS.disabled;
  return cache.mode === 'semantic' ? CACHE_STATUS.semanticMiss : CACHE_STATUS.miss;
}

function notSimulated(plan: RoutePlan): string[] {
  const nodes = allNodes(plan.root);
  const notes: string[] = [];
  if (nodes.some((n) => n.cache !== null)) notes.push('cache: every request is simulated as a MISS');
  if (nodes.some((n) => n.beforeRequestHooks.length + n.afterRequestHooks.length + n.inputGuardrails.length + n.outputGuardrails.length > 0)) notes.push('hooks and guardrails: not run');
  if (leavesOf(plan.root).some((l) => l.promptId !== null)) notes.push('prompt rendering: the body is used as given');
  notes.push('rate and usage limits: not consulted');
  return notes;
}

/** An answer with no body worth reading: the router looks only at its status and retry-after. */
function scriptedResponse(status: number, retryAfterSeconds: number | null): UpstreamResponse {
  const body = Buffer.from('{}');
  return {
    status,
    headers: retryAfterSeconds === null ? { 'content-type': 'application/json' } : { 'content-type': 'application/json', [RETRY_AFTER_HEADER]: String(retryAfterSeconds) },
    forwardTo: (res) => new Promise<void>((resolve) => res.end(body, resolve)),
    readAll: () => Promise.resolve(body),
    discard: () => {},
  };
}
