// Stored responses are kept GATEWAY_RESPONSE_RETENTION_DAYS (default 30, as the vendor keeps them;
// 0 keeps them for ever): every emulated response is stored unless the request says `store: false`,
// so without a sweep the table only grew. Each process sweeps now and then hourly, the oldest first,
// a bounded slice at a time with the event loop let in between; sweeps of several processes on one
// store only delete what another has not yet.
import { describeError, type GatewayLogger } from '../core/log.ts';
import type { ResponseStore } from '../store/response-store.ts';
import { deleteInSlices } from '../store/delete-in-slices.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const SWEEP_EVERY_MS = 60 * 60 * 1000;
const SLICE = 500;

export class ResponseRetention {
  readonly #store: ResponseStore;
  readonly #days: number;
  readonly #logger: GatewayLogger;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | null = null;

  constructor(store: ResponseStore, days: number, logger: GatewayLogger, now: () => number = Date.now) {
    this.#store = store;
    this.#days = days;
    this.#logger = logger;
    this.#now = now;
  }

  /** Sweeps now, off the caller's path, and then every hour; nothing when responses are kept for ever. */
  start(): void {
    if (this.#timer !== null || this.#days <= 0) return;
    this.#timer = setInterval(() => void this.sweep(), SWEEP_EVERY_MS);
    this.#timer.unref();
    void this.sweep();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Deletes the responses created more than the retention ago; how many. A failure is logged, never thrown. */
  async sweep(): Promise<number> {
    if (this.#days <= 0) return 0;
    const cutoffIso = new Date(this.#now() - this.#days * DAY_MS).toISOString();
    try {
      return await deleteInSlices((slice) => this.#store.deleteOlderThan(cutoffIso, slice), SLICE);
    } catch (error) {
      this.#logger.error('response_retention_failed', { error: describeError(error), note: 'the next sweep, within an hour, tries again' });
      return 0;
    }
  }
}
