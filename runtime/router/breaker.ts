// Circuit breakers, one per target key (ARCHITECTURE §5 "Circuit breaker").
//
//   new CircuitBreakers(store: BreakerStore, now: () => number)
//   canAttempt(key, plan): boolean   may a request go to this target now? In half-open state a
//                                    true answer claims the single trial slot, so call it only
//                                    right before actually sending.
//   isOpen(key, plan): boolean       no side effects: true exactly when canAttempt would say no.
//                                    Use it to build the `eligible` list for pickWeighted /
//                                    fallbackOrder, then canAttempt on the chosen target.
//   record(key, plan, status | 'connection_error'): void   after the attempt settles.
//
// A null plan means the target has no breaker: always allowed, nothing stored.
//
// States: closed (counting consecutive failures) → open for cooldownMs once failureThreshold is
// reached → half-open: one trial at a time; its success closes the circuit, its failure opens it
// for another cooldown. Decisions beyond the spec:
//   - A success recorded in any state closes the circuit: the target demonstrably answers (this
//     also covers targets "tried anyway" because every candidate was open).
//   - A failure recorded while open (a request that started earlier, or one tried anyway) does not
//     extend the cooldown.
//   - A trial that never records (its caller crashed) would wedge the circuit half-open, so a trial
//     older than cooldownMs is presumed lost and the next caller may run a new one.
//
// State lives behind BreakerStore so a shared (Redis) store can replace the in-memory one; states
// are replaced, never mutated, so a store may keep serialised copies. The transitions are one pure
// function, nextBreakerState, applied by the store.
import type { BreakerPlan } from '../core/plan.ts';
import { evictOldest } from '../core/evict-oldest.ts';

export interface BreakerState {
  /** Failures in a row since the last success. */
  consecutiveFailures: number;
  /** Epoch ms at which the cooldown ends; null while closed. Half-open once now ≥ openUntil. */
  openUntil: number | null;
  /** Epoch ms at which the running half-open trial started; null when no trial runs. */
  trialStartedAt: number | null;
}

/** What happened to a target's circuit; nextBreakerState says what the circuit is after it. */
export type BreakerEvent =
  | { kind: 'success' }
  | { kind: 'failure'; now: number; failureThreshold: number; cooldownMs: number }
  | { kind: 'trial'; now: number };

/**
 * Where circuits are kept. `apply` records an event: a store shared by several processes (Redis,
 * runtime/router/redis-breaker-store.ts) applies it to the shared state atomically, so failures
 * seen by different processes add up; `get` answers from this process's copy, never waiting.
 */
export interface BreakerStore {
  get(key: string): BreakerState | undefined;
  apply(key: string, event: BreakerEvent): void;
  /** Every state the store holds (for /metrics); a store that cannot list them returns nothing. */
  entries(): Iterable<[string, BreakerState]>;
}

/** Per-process store. Bounded, because inline configs can mint target keys without limit. */
export class MemoryBreakerStore implements BreakerStore {
  readonly #states = new Map<string, BreakerState>();
  readonly #maxEntries: number;

  constructor(maxEntries = 100_000) {
    this.#maxEntries = Math.max(1, maxEntries);
  }

  get(key: string): BreakerState | undefined {
    return this.#states.get(key);
  }

  apply(key: string, event: BreakerEvent): void {
    this.set(key, nextBreakerState(this.#states.get(key) ?? CLOSED, event));
  }

  /** Replaces a state (a shared store's copy takes the shared state this way). */
  set(key: string, state: BreakerState): void {
    // Re-inserting moves the key to the back, so eviction drops the least recently written.
    this.#states.delete(key);
    this.#states.set(key, state);
    evictOldest(this.#states, this.#maxEntries);
  }

  get size(): number {
    return this.#states.size;
  }

  entries(): Iterable<[string, BreakerState]> {
    return this.#states.entries();
  }
}

export const CLOSED: BreakerState = Object.freeze({ consecutiveFailures: 0, openUntil: null, trialStartedAt: null });

/**
 * The circuit after an event (the one definition of the transitions; the Redis store's script
 * mirrors it, and test/router/breaker-store.conformance.test.ts holds the two together). A success
 * closes it from any state. A failure while closed counts, and opens it at the threshold; in
 * half-open (the cooldown over) it opens it for another cooldown; during the cooldown it only counts.
 * A trial marks when the half-open trial started.
 */
export function nextBreakerState(state: BreakerState, event: BreakerEvent): BreakerState {
  if (event.kind === 'success') return CLOSED;
  if (event.kind === 'trial') return { ...state, trialStartedAt: event.now };
  const failures = state.consecutiveFailures + 1;
  if (state.openUntil === null) {
    return { consecutiveFailures: failures, openUntil: failures >= event.failureThreshold ? event.now + event.cooldownMs : null, trialStartedAt: null };
  }
  if (event.now >= state.openUntil) return { consecutiveFailures: failures, openUntil: event.now + event.cooldownMs, trialStartedAt: null };
  return { ...state, consecutiveFailures: failures };
}

export function isBreakerFailure(plan: BreakerPlan, status: number | 'connection_error'): boolean {
  if (status === 'connection_error') return true;
  return plan.failureStatusCodes === null ? status >= 500 : plan.failureStatusCodes.includes(status);
}

export class CircuitBreakers {
  #store: BreakerStore;
  readonly #now: () => number;

  constructor(store: BreakerStore, now: () => number) {
    this.#store = store;
    this.#now = now;
  }

  /** Replaces the store (serve shares circuits through Redis once it is connected, before any request). */
  useStore(store: BreakerStore): void {
    this.#store = store;
  }

  isOpen(key: string, plan: BreakerPlan | null): boolean {
    if (plan === null) return false;
    const state = this.#store.get(key);
    return state !== undefined && !this.#admits(state, plan, this.#now());
  }

  canAttempt(key: string, plan: BreakerPlan | null): boolean {
    if (plan === null) return true;
    const state = this.#store.get(key);
    if (state === undefined || state.openUntil === null) return true;
    const now = this.#now();
    if (!this.#admits(state, plan, now)) return false;
    this.#store.apply(key, { kind: 'trial', now });
    return true;
  }

  record(key: string, plan: BreakerPlan | null, status: number | 'connection_error'): void {
    if (plan === null) return;
    if (!isBreakerFailure(plan, status)) {
      // Nothing to record for a closed circuit: most answers are successes, and a shared store is not asked for them.
      const state = this.#store.get(key);
      if (state !== undefined && (state.consecutiveFailures !== 0 || state.openUntil !== null)) this.#store.apply(key, { kind: 'success' });
      return;
    }
    this.#store.apply(key, { kind: 'failure', now: this.#now(), failureThreshold: plan.failureThreshold, cooldownMs: plan.cooldownMs });
  }

  /**
   * Circuits that are not closed: `open` during the cooldown, `half_open` once it ended (the next
   * request is the trial). Keys are `<config id>\u0000<target path>` (RouterRuntime.leaf).
   */
  *notClosed(): Iterable<{ key: string; state: 'open' | 'half_open' }> {
    const now = this.#now();
    for (const [key, state] of this.#store.entries()) {
      if (state.openUntil === null) continue;
      yield { key, state: now < state.openUntil ? 'open' : 'half_open' };
    }
  }

  #admits(state: BreakerState, plan: BreakerPlan, now: number): boolean {
    if (state.openUntil === null) return true;
    if (now < state.openUntil) return false;
    return state.trialStartedAt === null || now - state.trialStartedAt >= plan.cooldownMs;
  }
}
