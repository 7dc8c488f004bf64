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
// are replaced, never mutated, so a store may keep serialised copies.
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

export interface BreakerStore {
  get(key: string): BreakerState | undefined;
  set(key: string, state: BreakerState): void;
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

const CLOSED: BreakerState = Object.freeze({ consecutiveFailures: 0, openUntil: null, trialStartedAt: null });

export function isBreakerFailure(plan: BreakerPlan, status: number | 'connection_error'): boolean {
  if (status === 'connection_error') return true;
  return plan.failureStatusCodes === null ? status >= 500 : plan.failureStatusCodes.includes(status);
}

export class CircuitBreakers {
  readonly #store: BreakerStore;
  readonly #now: () => number;

  constructor(store: BreakerStore, now: () => number) {
    this.#store = store;
    this.#now = now;
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
    this.#store.set(key, { ...state, trialStartedAt: now });
    return true;
  }

  record(key: string, plan: BreakerPlan | null, status: number | 'connection_error'): void {
    if (plan === null) return;
    const state = this.#store.get(key) ?? CLOSED;
    if (!isBreakerFailure(plan, status)) {
      if (state.consecutiveFailures !== 0 || state.openUntil !== null) this.#store.set(key, CLOSED);
      return;
    }
    const now = this.#now();
    if (state.openUntil === null) {
      const failures = state.consecutiveFailures + 1;
      const opens = failures >= plan.failureThreshold;
      this.#store.set(key, { consecutiveFailures: failures, openUntil: opens ? now + plan.cooldownMs : null, trialStartedAt: null });
    } else if (now >= state.openUntil) {
      // Half-open: the trial (or any request that slipped through) failed; start another cooldown.
      this.#store.set(key, { consecutiveFailures: state.consecutiveFailures + 1, openUntil: now + plan.cooldownMs, trialStartedAt: null });
    } else {
      this.#store.set(key, { ...state, consecutiveFailures: state.consecutiveFailures + 1 });
    }
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
