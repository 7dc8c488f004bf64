// One request's checks share a time budget: what they hold the serving thread for, and what their
// validations hold the jsonSchema thread for (json-schema-thread.ts). Each check is bounded on its own
// (a pattern's work per match, contains' candidates, the body limit), but a config holds many
// checks, and an inline config is client input: ninety regexMatch checks of distinct ~100-step
// rules, each near its bound on a crafted text, held the thread for most of a minute. So once a
// request's synchronous check work (every phase, every try) reaches REQUEST_CHECK_TIME_MS, the
// checks after it are not run and fail, whatever their failOnError: padding a prompt until the
// budget is spent must not let a deny rule pass unjudged.

import type { TextTransform } from './check.ts';

/** The most time one request's checks and transformers may take (the serving thread's and the validation thread's); a check already running on the serving thread finishes. */
export const REQUEST_CHECK_TIME_MS = 2_000;

export class CheckBudget {
  readonly limitMs: number;
  #spentMs = 0;

  constructor(limitMs = REQUEST_CHECK_TIME_MS) {
    this.limitMs = limitMs;
  }

  get spentMs(): number {
    return this.#spentMs;
  }

  /** Whether the checks still to run may run. */
  get open(): boolean {
    return this.#spentMs < this.limitMs;
  }

  /** What is left before the budget is spent (0 once it is). */
  get remainingMs(): number {
    return Math.max(0, this.limitMs - this.#spentMs);
  }

  /** Counts the time since `t0` (performance.now()) a check held a thread. */
  charge(t0: number): void {
    this.#spentMs += performance.now() - t0;
  }

  /**
   * `transform` counted per text it rewrites (a transformer rewrites every message): once the budget
   * is spent, the next text throws, and the transformer fails as one that could not run.
   */
  metered(transform: TextTransform): TextTransform {
    return (text) => {
      if (!this.open) throw new BudgetSpent(this);
      const t0 = performance.now();
      try {
        return transform(text);
      } finally {
        this.charge(t0);
      }
    };
  }

  /** Why a check was not run. */
  spentReason(): string {
    return `not run: this request's checks had already held the gateway for ${Math.round(this.#spentMs)} ms, and one request's checks may take at most ${this.limitMs} ms`;
  }
}

/** A check stopped, or never started, because its request's budget was spent: it fails whatever its failOnError. */
export class BudgetSpent extends Error {
  constructor(budget: CheckBudget) {
    super(budget.spentReason());
    this.name = 'BudgetSpent';
  }
}
