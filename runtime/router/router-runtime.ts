// The library that emitted routers call as `rt` (compiler/config/emit.ts). A router decides *which*
// leaf to try; this runs the attempt itself: circuit breaker bookkeeping, the per-attempt timeout,
// retries with backoff, and the upstream call through an injected Transport.
import type { PlanLeaf } from '../core/plan.ts';
import { GatewayError } from '../core/errors.ts';
import type { UpstreamResponse } from '../upstream/types.ts';
import { attemptSignal, NOTHING_TO_DISPOSE } from './abort.ts';
import type { CircuitBreakers } from './breaker.ts';
import { errorOutcome, type Outcome } from './outcome.ts';
import { compilePattern, type LinearPattern, MAX_MATCH_WORK, MAX_REQUEST_PATTERN_WORK, PatternWorkError } from '../../compiler/config/linear-regex.ts';
import { LEAF_DEFAULTS } from '../../compiler/config/route-plan.ts';
import { eq, gt, gte, inList, lt, lte, matches, ne, notInList, readField } from '../../compiler/config/query-operators.ts';
import { runWithRetries, type RetryOptions } from './retry.ts';
import { fallbackOrder, pickWeighted } from './weighted-pick.ts';

/** What a router reads of the request; built once per request by the inference handler. */
export interface RoutedRequest {
  metadata: Record<string, string>;
  /** The parsed JSON body, when the route reads it; undefined otherwise. */
  params: unknown;
  url: { pathname: string };
  /** Fires when the client goes away. */
  signal: AbortSignal;
  /** x-gateway-request-timeout, which wins over the config's request_timeout. */
  timeoutOverrideMs: number | null;
  /** x-gateway-provider: the provider of leaves that name none. */
  headerProvider: string | null;
  /**
   * What the request's routing headers name for a leaf that reads them (x-gateway-provider,
   * x-gateway-virtual-key, x-gateway-custom-host): such a leaf's circuit is this target's, not every
   * request's. '' (or absent) when the request sends none.
   */
  routeIdentity?: string;
  /** Characters × steps the request's `$regex` conditions have looked at so far (MAX_REQUEST_PATTERN_WORK). */
  patternWork?: number;
}

/** A leaf as the runtime holds it: its plan plus what was derived once at router build time. */
/** An attempt's own time limit: x-gateway-request-timeout, else the target's request_timeout; null: none. */
export function attemptLimitMs(req: Pick<RoutedRequest, 'timeoutOverrideMs'>, plan: Pick<PlanLeaf, 'requestTimeoutMs'>): number | null {
  return req.timeoutOverrideMs ?? plan.requestTimeoutMs;
}

export interface LeafTarget {
  plan: PlanLeaf;
  /** Circuit-breaker identity: config ID + leaf path (breakerKeyFor adds what a request's routing headers name). */
  breakerKey: string;
  /** The leaf takes its provider, virtual key or host from the request's routing headers. */
  readsRoutingHeaders: boolean;
  /** One try of this leaf inside its attempt-phase stages; null when no stage applies (the bare try). */
  around: ((req: any) => Promise<Outcome>) | null;
}

/** Composes a leaf's attempt-phase stages around `tryOnce` (one upstream try), once per leaf; null: none apply. */
export type AttemptWrapper<R extends RoutedRequest> = (leaf: PlanLeaf, tryOnce: (req: R) => Promise<Outcome>) => ((req: R) => Promise<Outcome>) | null;

/** Makes one upstream call for a leaf; throws GatewayError for failures the gateway detects itself. */
export type Transport<R extends RoutedRequest = RoutedRequest> = (req: R, leaf: LeafTarget, signal: AbortSignal) => Promise<UpstreamResponse>;

export interface RouterRuntimeOptions<R extends RoutedRequest> {
  configId: string;
  transport: Transport<R>;
  breakers: CircuitBreakers;
  retry: Omit<RetryOptions, 'signal'>;
  random: () => number;
  /** Distinguishes connection failures (which count for the circuit breaker) from other errors. */
  isConnectionError: (error: unknown) => boolean;
  /** The upstream layer's own safety timeouts (undici headers/body timeouts): treated like request_timeout. */
  isTimeoutError: (error: unknown) => boolean;
  /** The provider a leaf calls (x-gateway-provider), when the transport resolves it (virtual keys, slugs). */
  providerOf?: (req: R, leaf: LeafTarget) => string;
  /** The attempt-phase stages of a leaf, composed once when the router is built. */
  wrapAttempt?: AttemptWrapper<R>;
}

/** A leaf's circuit-breaker identity: its config and its path, which no config ID or path contains. */
export function breakerKeyOf(configId: string, leafPath: string): string {
  return `${configId}\u0000${leafPath}`;
}

/** Between a leaf's key and what the request's routing headers name (BREAKER_TARGET_SEPARATOR never occurs in either). */
export const BREAKER_TARGET_SEPARATOR = '\u0002';

/** A leaf that takes its provider, virtual key or host from the request's routing headers. */
export function readsRoutingHeaders(plan: PlanLeaf): boolean {
  return plan.customHost === null || (plan.provider === null && plan.virtualKey === null);
}

/**
 * The circuit of a leaf for one request: a leaf that reads the routing headers calls whatever they
 * name, so each named target has a circuit of its own (a failing virtual key never opens the circuit
 * for another key's requests).
 */
export function breakerKeyFor(leaf: Pick<LeafTarget, 'breakerKey' | 'readsRoutingHeaders'>, req: RoutedRequest | undefined): string {
  const identity = req?.routeIdentity;
  return leaf.readsRoutingHeaders && identity !== undefined && identity !== '' ? `${leaf.breakerKey}${BREAKER_TARGET_SEPARATOR}${identity}` : leaf.breakerKey;
}

export type CompiledRouter<R extends RoutedRequest = RoutedRequest> = (req: R) => Promise<Outcome>;

export class RouterRuntime<R extends RoutedRequest = RoutedRequest> {
  readonly eq = eq;
  readonly ne = ne;
  readonly gt = gt;
  readonly gte = gte;
  readonly lt = lt;
  readonly lte = lte;
  readonly inList = inList;
  readonly notInList = notInList;
  /**
   * A `$regex` condition; a value too long to match within the engine's bound is refused (400), not
   * judged, and so is a request whose conditions together would look at more than
   * MAX_REQUEST_PATTERN_WORK: a config may hold any number of conditions on one long value.
   */
  readonly matches = (req: R, value: unknown, pattern: LinearPattern): boolean => {
    if (typeof value !== 'string') return false;
    const cost = value.length * pattern.steps;
    const work = (req.patternWork ?? 0) + cost;
    // A value past the bound of one match is refused by the match itself, with its own message.
    if (work > MAX_REQUEST_PATTERN_WORK && cost <= MAX_MATCH_WORK) {
      throw new GatewayError('invalid_request_body', `The config's $regex conditions would look at more than ${MAX_REQUEST_PATTERN_WORK} characters × pattern steps for this request (this one: ${value.length} characters against /${pattern.regex.pattern()}/, ${pattern.steps} steps); shorten the values they test.`);
    }
    req.patternWork = work;
    try {
      return matches(value, pattern);
    } catch (error) {
      if (error instanceof PatternWorkError) throw new GatewayError('invalid_request_body', `A condition of the config tests a value with $regex, and ${error.message}.`);
      throw error;
    }
  };
  readonly field = readField;
  readonly pattern = compilePattern;

  readonly #options: RouterRuntimeOptions<R>;
  readonly #breakerFreeGroups = new WeakMap<readonly (readonly LeafTarget[])[], BreakerFreeGroups | null>();

  constructor(options: RouterRuntimeOptions<R>) {
    this.#options = options;
  }

  /** `fields`: what the emitted router wrote, the leaf's non-default fields (LEAF_DEFAULTS completes it). */
  leaf(fields: Partial<PlanLeaf> & { path: string }): LeafTarget {
    const plan: PlanLeaf = { ...LEAF_DEFAULTS, ...fields };
    const target: LeafTarget = { plan, breakerKey: breakerKeyOf(this.#options.configId, plan.path), readsRoutingHeaders: readsRoutingHeaders(plan), around: null };
    const wrap = this.#options.wrapAttempt;
    if (wrap !== undefined) target.around = wrap(plan, (req: R) => this.#tryOnce(req, target));
    return target;
  }

  attempt(req: R, leaf: LeafTarget): Promise<Outcome> {
    const options = this.#options;
    const around = leaf.around;
    const once = around === null ? () => this.#tryOnce(req, leaf) : () => around(req);
    if (leaf.plan.retry === null || !(leaf.plan.retry.attempts > 0)) return once();
    return runWithRetries(leaf.plan.retry, once, { ...options.retry, signal: req.signal });
  }

  /** Fallback order: children with a usable circuit, in order; all of them when every one is open. */
  fallbackOrder(groups: readonly (readonly LeafTarget[])[], req?: R): readonly number[] {
    const fixed = this.#breakerFree(groups);
    if (fixed !== null) return fixed.order;
    return fallbackOrder(this.#eligible(groups, req));
  }

  pickWeighted(weights: readonly number[], groups: readonly (readonly LeafTarget[])[], req?: R): number {
    const eligible = this.#breakerFree(groups)?.eligible ?? this.#eligible(groups, req);
    const picked = pickWeighted(weights, eligible, this.#options.random);
    // Every candidate open: try them anyway (ARCHITECTURE §5), still by weight.
    return picked >= 0 ? picked : pickWeighted(weights, weights.map(() => true), this.#options.random);
  }

  /** Whether a fallback strategy moves past this outcome: listed statuses, or any non-2xx when none are listed. */
  fallsBack(outcome: Outcome, codes: readonly number[] | null): boolean {
    return codes === null ? outcome.status < 200 || outcome.status >= 300 : codes.includes(outcome.status);
  }

  discard(outcome: Outcome): void {
    outcome.response?.discard();
  }

  /**
   * For sibling groups with no circuit breaker anywhere, every child is always eligible: the answer
   * is computed once per groups array (the emitted router's constant) instead of on every request.
   */
  #breakerFree(groups: readonly (readonly LeafTarget[])[]): BreakerFreeGroups | null {
    let known = this.#breakerFreeGroups.get(groups);
    if (known === undefined) {
      const free = groups.every((leaves) => leaves.every((leaf) => leaf.plan.breaker === null));
      known = free ? { eligible: Object.freeze(groups.map(() => true)), order: Object.freeze(groups.map((_, i) => i)) } : null;
      this.#breakerFreeGroups.set(groups, known);
    }
    return known;
  }

  #eligible(groups: readonly (readonly LeafTarget[])[], req: R | undefined): boolean[] {
    const breakers = this.#options.breakers;
    return groups.map((leaves) => leaves.some((leaf) => !breakers.isOpen(breakerKeyFor(leaf, req), leaf.plan.breaker)));
  }

  async #tryOnce(req: R, leaf: LeafTarget): Promise<Outcome> {
    const { breakers, transport } = this.#options;
    const plan = leaf.plan;
    const provider = this.#options.providerOf?.(req, leaf) ?? plan.provider ?? req.headerProvider ?? '';
    const breakerKey = plan.breaker === null ? leaf.breakerKey : breakerKeyFor(leaf, req);
    // Claims the half-open trial slot when there is one; a leaf tried "anyway" goes ahead regardless.
    breakers.canAttempt(breakerKey, plan.breaker);
    const limit = attemptLimitMs(req, plan);
    const timer = attemptSignal(req.signal, limit);
    try {
      const response = await transport(req, leaf, timer.signal);
      breakers.record(breakerKey, plan.breaker, response.status);
      return { status: response.status, leafPath: plan.path, provider, retries: 0, response: timer.dispose === NOTHING_TO_DISPOSE ? response : disposing(response, timer.dispose), error: null };
    } catch (error) {
      timer.dispose();
      if (timer.timedOut() || this.#options.isTimeoutError(error)) {
        // Without a limit of the request's, the upstream layer's safety timeout fired: its message says which and how to wait longer.
        const timeout = new GatewayError('request_timeout', limit !== null ? `The provider did not answer within ${limit} ms.` : `The provider did not answer: ${(error as Error).message}.`);
        // No response arrived, as with a connection failure: it counts against the circuit.
        breakers.record(breakerKey, plan.breaker, 'connection_error');
        return errorOutcome(timeout, plan.path, provider);
      }
      if (req.signal.aborted) throw error;
      if (error instanceof GatewayError) {
        breakers.record(breakerKey, plan.breaker, error.status);
        return errorOutcome(error, plan.path, provider);
      }
      if (this.#options.isConnectionError(error)) {
        breakers.record(breakerKey, plan.breaker, 'connection_error');
        return errorOutcome(new GatewayError('provider_unreachable', `The provider could not be reached: ${(error as Error).message}`), plan.path, provider);
      }
      throw error;
    }
  }
}

interface BreakerFreeGroups {
  eligible: readonly boolean[];
  order: readonly number[];
}


/** Keeps the attempt's timer running over the body, and clears it once the body is done with. */
function disposing(response: UpstreamResponse, dispose: () => void): UpstreamResponse {
  return {
    status: response.status,
    headers: response.headers,
    forwardTo: (res) => response.forwardTo(res).finally(dispose),
    readAll: () => response.readAll().finally(dispose),
    discard: () => {
      dispose();
      response.discard();
    },
  };
}
