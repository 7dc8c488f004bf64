// The counting period of a usage limit: the whole life of the policy (cumulative), or the current
// UTC calendar week (from Monday 00:00) or month, so a periodic budget starts again at zero.
import type { PeriodicReset } from '../../store/usage-limit-policy-store.ts';

export interface Period {
  /** Part of the counter's key: `all`, `w2026-11-23` (the Monday), `m2026-11`. */
  id: string;
  /** Unix ms when the next period starts; null for a cumulative count. */
  endsAt: number | null;
}

const DAY_MS = 86_400_000;
/** A period's budgets are kept this long after it ends (a clock a little behind still finds them). */
export const ENDED_KEPT_MS = DAY_MS;
/** How often budgets kept past their period are deleted (from the store, or from Redis). */
export const ENDED_SWEEP_EVERY_MS = 3_600_000;
const CUMULATIVE: Period = { id: 'all', endsAt: null };

export function periodAt(reset: PeriodicReset | null, now: number): Period {
  if (reset === null) return CUMULATIVE;
  const date = new Date(now);
  if (reset === 'monthly') {
    const year = date.getUTCFullYear();
    const month = date.getUTCMonth();
    return { id: `m${year}-${pad(month + 1)}`, endsAt: Date.UTC(year, month + 1, 1) };
  }
  const midnight = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  // getUTCDay: 0 is Sunday; days since Monday.
  const monday = midnight - ((date.getUTCDay() + 6) % 7) * DAY_MS;
  const start = new Date(monday);
  return { id: `w${start.getUTCFullYear()}-${pad(start.getUTCMonth() + 1)}-${pad(start.getUTCDate())}`, endsAt: monday + 7 * DAY_MS };
}

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}
