// Usage-limit budgets are journaled to the store, so a restart does not start every budget over: a
// monthly cost limit must not reset on each deploy. Counted in this process's memory (no REDIS_URL),
// the journal is what a start reads back; with Redis, it is what a Redis that lost its data is
// seeded from (runtime/api/policies/limits-setup.ts).
// Requests are still checked against memory only (the request path awaits no database); what was
// charged since the last write is added to the store each second, off the path, and at shutdown;
// the budgets of periods not yet over are read back once at start. Writes add (never set), so
// processes sharing a store each add their own charges and none overwrites another's; each write
// returns the store's totals, and a group this process charges is raised to what all of them spent,
// so processes sharing a PostgreSQL store hold one budget within about a second of each other.
// What a stop could not write (the store away: charges pile up in memory during an outage) is kept
// in a file under the data directory and added by the next start (runtime/store/pending-files.ts).
import { describeError, type GatewayLogger } from '../../core/log.ts';
import { Outage } from '../../core/outage.ts';
import { OneAtATime } from '../../core/one-at-a-time.ts';
import type { BudgetSpend, UsageBudgetStore } from '../../store/usage-budget-store.ts';
import type { BudgetCharge } from './counters.ts';
import type { MemoryCounters } from './memory-counters.ts';
import { deleteInSlices } from '../../store/delete-in-slices.ts';
import { keepPending, takePending } from '../../store/pending-files.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ENDED_KEPT_MS, ENDED_SWEEP_EVERY_MS } from './periods.ts';

/** How often charges are written: a crash loses at most this much of the spend. */
export const BUDGET_WRITE_MS = 1000;
/**
 * Spends per transaction: on SQLite the writes run on the serving thread, ~5 µs each, so a second
 * in which thousands of groups spent is written a slice at a time with the event loop let in between.
 */
export const WRITE_CHUNK = 128;
/** Ended budgets deleted per statement. */
const DELETE_CHUNK = 1_000;

export class BudgetJournal {
  readonly #store: UsageBudgetStore;
  readonly #logger: GatewayLogger;
  readonly #now: () => number;
  /** Charged and not yet written: (policy, period, group) → spend to add. */
  #pending = new Map<string, BudgetSpend>();
  readonly #writes = new OneAtATime(() => this.#writeOnce());
  #timer: NodeJS.Timeout | null = null;
  #lastDelete = 0;
  readonly #outage: Outage;
  /** The counts the store's totals are fed back into (set by restore). */
  #counters: MemoryCounters | null = null;
  /** Where spends a stop could not write are kept (null: nowhere, they are lost). */
  readonly #dataDir: string | null;

  constructor(store: UsageBudgetStore, logger: GatewayLogger, now: () => number = Date.now, dataDir: string | null = null) {
    this.#store = store;
    this.#dataDir = dataDir;
    this.#logger = logger;
    this.#outage = new Outage(logger, 'usage_budgets_write_failed', 'usage_budgets_write_recovered', 'error');
    this.#now = now;
  }

  /**
   * Adds what an earlier stop kept in files, drops budgets long over from the store, and returns the
   * budgets of periods not over yet, raised into `counters` when given (memory counters, which the
   * store's totals then keep raised on each write; null with Redis, which is seeded from them instead).
   */
  async restore(counters: MemoryCounters | null): Promise<BudgetSpend[]> {
    const now = this.#now();
    await this.#deleteEnded(now);
    await this.#addKept();
    const spends = await this.#store.load(now);
    if (counters !== null) for (const spend of spends) counters.raiseBudget(spend);
    this.#counters = counters;
    return spends;
  }

  /** The store's budgets of periods not over yet: what every process wrote until its last second. */
  current(): Promise<BudgetSpend[]> {
    return this.#store.load(this.#now());
  }

  /** Notes charges memory just counted (MemoryCounters calls this for every budget charge). */
  readonly note = (charge: BudgetCharge): void => {
    if (!(charge.amount > 0)) return;
    const key = `${charge.policyId}\n${charge.period}\n${charge.group}`;
    const pending = this.#pending.get(key);
    if (pending === undefined) this.#pending.set(key, { policyId: charge.policyId, period: charge.period, group: charge.group, used: charge.amount, endsAt: charge.endsAt });
    else pending.used += charge.amount;
  };

  /** Writes every second until closed (unref'd: it never keeps a process alive). */
  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => void this.write(), BUDGET_WRITE_MS);
    this.#timer.unref();
  }

  /** Adds what was charged since the last write to the store; on failure it is kept for the next one. */
  write(): Promise<void> {
    return this.#writes.run();
  }

  /** Stops the timer and writes what is pending (called after the server drained, before the store closes). */
  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.write();
    if (this.#pending.size === 0 || this.#dataDir === null) return;
    const spends = [...this.#pending.values()];
    try {
      const file = await keepPending(this.#dataDir, 'usage-budgets', spends.map((spend) => JSON.stringify(spend)));
      this.#pending = new Map();
      this.#logger.warn('usage_budgets_spilled', { groups: spends.length, file, note: 'the store did not take them; the next start adds them' });
    } catch (error) {
      this.#logger.error('usage_budgets_spill_failed', { groups: spends.length, error: describeError(error) });
    }
  }

  /** Adds the spends an earlier stop kept in files (at start, and when the store answers again); returns how many. */
  async #addKept(): Promise<number> {
    if (this.#dataDir === null) return 0;
    return takePending(this.#dataDir, 'usage-budgets', async (lines) => {
      const spends = lines.map((line) => JSON.parse(line) as BudgetSpend);
      for (let from = 0; from < spends.length; from += WRITE_CHUNK) await this.#store.add(spends.slice(from, from + WRITE_CHUNK));
    }, this.#logger);
  }

  get pending(): number {
    return this.#pending.size;
  }

  async #writeOnce(): Promise<void> {
    if (this.#pending.size === 0) return;
    const spends = [...this.#pending];
    this.#pending = new Map();
    let written = 0;
    let recovered = false;
    try {
      for (; written < spends.length; written += WRITE_CHUNK) {
        if (written > 0) await nextTurn();
        const slice = spends.slice(written, written + WRITE_CHUNK);
        const totals = await this.#store.add(slice.map(([, spend]) => spend));
        slice.forEach(([key, spend], i) => this.#raise(key, spend, totals[i]!));
      }
      recovered = this.#outage.recovered({ groups: spends.length });
    } catch (error) {
      // Nothing is lost: the spends not written (the failed slice rolled back whole) go back, with
      // anything charged to the same groups meanwhile.
      for (const [key, spend] of spends.slice(written)) {
        const later = this.#pending.get(key);
        if (later !== undefined) spend.used += later.used;
        this.#pending.set(key, spend);
      }
      this.#outage.failed(() => ({ groups: this.#pending.size, error: describeError(error) }));
      return;
    }
    const now = this.#now();
    // The store is back: spends a stop kept while it was away go in now, and the counts take them in.
    if (recovered) await this.#catchUp(now);
    if (now - this.#lastDelete >= ENDED_SWEEP_EVERY_MS) await this.#deleteEnded(now);
  }

  /** Adds the kept spends, then raises the counts to the store's totals; a failure waits for the next recovery or start. */
  async #catchUp(now: number): Promise<void> {
    if ((await this.#addKept()) === 0) return;
    try {
      for (const spend of await this.#store.load(now)) this.#counters?.raiseBudget(spend);
    } catch (error) {
      this.#outage.failed(() => ({ error: describeError(error) }));
    }
  }

  /** The group's count becomes the store's total plus what was charged here since this write took it. */
  #raise(key: string, spend: BudgetSpend, total: number | null): void {
    if (total === null) {
      // The policy was deleted (in this process or another): what it still charged goes with it.
      this.#pending.delete(key);
      return;
    }
    const since = this.#pending.get(key)?.used ?? 0;
    this.#counters?.raiseBudget({ ...spend, used: total + since });
  }

  async #deleteEnded(now: number): Promise<void> {
    this.#lastDelete = now;
    try {
      await deleteInSlices((slice) => this.#store.deleteEnded(now - ENDED_KEPT_MS, slice), DELETE_CHUNK);
    } catch (error) {
      this.#logger.error('usage_budgets_cleanup_failed', { error: describeError(error) });
    }
  }
}
