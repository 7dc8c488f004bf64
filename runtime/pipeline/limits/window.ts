// The sliding window of a rate limit, as counted buckets. A window of W ms is cut into
// WINDOW_BUCKETS buckets of W/WINDOW_BUCKETS ms; a request's count goes into the bucket of its time,
// and the count "in the window" at time t sums the buckets from floor(t/B) - WINDOW_BUCKETS to
// floor(t/B): one bucket more than W, so the span counted always covers (t - W, t]. Hence no
// sliding window of W ever holds more than the limit (the bound that matters to a provider's quota),
// and a slot frees at most one bucket (W/60: 1 s for rpm, 1 min for rph, 24 min for rpd) later than
// an exact sliding log would free it. Memory per counter: at most 61 numbers, whatever the rate.
//
// The memory counters and the Redis script keep the same buckets; both hand them to these
// functions, so the arithmetic of the answer (used, Retry-After, reset) exists once.

export const WINDOW_BUCKETS = 60;

export function bucketMsOf(windowMs: number): number {
  return windowMs / WINDOW_BUCKETS;
}

/** The index of the bucket that holds time `now`. */
export function bucketAt(now: number, windowMs: number): number {
  return Math.floor(now / bucketMsOf(windowMs));
}

/** The oldest bucket index still counted at `now`. */
export function oldestLiveBucket(now: number, windowMs: number): number {
  return bucketAt(now, windowMs) - WINDOW_BUCKETS;
}

/** A counter's live buckets: index → count. */
export type Buckets = ReadonlyMap<number, number>;

/** Whether a request costing `cost` fits: nothing when the count already reached the limit, and never past it. */
export function fits(used: number, cost: number, limit: number): boolean {
  return used < limit && used + cost <= limit;
}

export interface WindowState {
  /** Counted in the window, this request included when it was admitted. */
  used: number;
  /** 0 when the request fits; else milliseconds until a request of the same cost would fit, null when it never can (cost above the limit). */
  retryAfterMs: number | null;
  /** Milliseconds until everything counted now has left the window (0: nothing counted). */
  resetMs: number;
}

/** Milliseconds from `now` until bucket `index` leaves the window. */
export function bucketLeavesIn(index: number, now: number, windowMs: number): number {
  return Math.max(0, (index + WINDOW_BUCKETS + 1) * bucketMsOf(windowMs) - now);
}

/** The state of a window the request fits in, from its count and newest bucket (no walk over the buckets). */
export function admittedState(used: number, newestBucket: number | null, now: number, windowMs: number): WindowState {
  return { used, retryAfterMs: 0, resetMs: newestBucket === null ? 0 : bucketLeavesIn(newestBucket, now, windowMs) };
}

/** What the window says at `now`, from its live buckets (the admitted request already added). */
export function windowState(buckets: Buckets, now: number, windowMs: number, limit: number, cost: number): WindowState {
  const indexes = [...buckets.keys()].sort((a, b) => a - b);
  let used = 0;
  for (const index of indexes) used += buckets.get(index)!;
  const leaves = (index: number): number => bucketLeavesIn(index, now, windowMs);
  let retryAfterMs: number | null = fits(used, cost, limit) ? 0 : null;
  if (retryAfterMs === null && cost <= limit) {
    let left = used;
    for (const index of indexes) {
      left -= buckets.get(index)!;
      if (fits(left, cost, limit)) {
        retryAfterMs = leaves(index);
        break;
      }
    }
  }
  const resetMs = indexes.length === 0 ? 0 : leaves(indexes[indexes.length - 1]);
  return { used, retryAfterMs, resetMs };
}

/** Drops the buckets that left the window; returns the count still in it. */
export function pruneBuckets(buckets: Map<number, number>, now: number, windowMs: number): number {
  const oldest = oldestLiveBucket(now, windowMs);
  let used = 0;
  for (const [index, count] of buckets) {
    if (index < oldest) buckets.delete(index);
    else used += count;
  }
  return used;
}
