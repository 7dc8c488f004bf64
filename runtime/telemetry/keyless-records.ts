// Records of requests that no key vouched for (a 401, a path no route has, a health probe) are
// written at most KEYLESS_RECORDS_PER_SECOND a second on average, with bursts of KEYLESS_BURST. Every
// request is recorded, and such a record costs its sender nothing: one client without a key sent
// 34,000 a second to a 2-core gateway, ~20 MB of log a second, which would fill a disk within hours
// and spend a sixth of the CPU on inserts. A key's requests are never limited here (limits and
// budgets are for them); past the rate, keyless records are dropped and counted.

/** Keyless records written a second on average, per process. */
export const KEYLESS_RECORDS_PER_SECOND = 100;
/** Keyless records written at once before the rate applies: a burst of mistyped keys is kept whole. */
export const KEYLESS_BURST = 1000;

export class KeylessRecordBudget {
  readonly #perSecond: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #at: number;
  #dropped = 0;

  constructor(perSecond = KEYLESS_RECORDS_PER_SECOND, burst = KEYLESS_BURST, now: () => number = Date.now) {
    this.#perSecond = perSecond;
    this.#burst = burst;
    this.#now = now;
    this.#tokens = burst;
    this.#at = now();
  }

  /** Whether one more keyless record may be written now; false counts it dropped. */
  take(): boolean {
    const now = this.#now();
    if (now > this.#at) {
      this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#at) / 1000) * this.#perSecond);
      this.#at = now;
    }
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return true;
    }
    this.#dropped++;
    return false;
  }

  /** Keyless records dropped since start. */
  get dropped(): number {
    return this.#dropped;
  }
}
