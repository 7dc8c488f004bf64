// A backend that fails (Redis, the store) is logged when it starts failing and when it answers again,
// not at every failure in between: down for an hour, it would otherwise write a line per request or
// per poll. What each failure costs is counted in /metrics where it matters; the log tells the story.
import type { GatewayLogger, LogFields } from './log.ts';

export class Outage {
  readonly #logger: GatewayLogger;
  readonly #failedEvent: string;
  readonly #recoveredEvent: string;
  readonly #level: 'warn' | 'error';
  #down = false;

  /** `failedEvent` is logged at `level` when a failure starts an outage; `recoveredEvent` (info) ends it. */
  constructor(logger: GatewayLogger, failedEvent: string, recoveredEvent: string, level: 'warn' | 'error' = 'warn') {
    this.#logger = logger;
    this.#failedEvent = failedEvent;
    this.#recoveredEvent = recoveredEvent;
    this.#level = level;
  }

  get down(): boolean {
    return this.#down;
  }

  /** A failure: logged when it is the outage's first. `fields` is called only then. */
  failed(fields: () => LogFields): void {
    if (this.#down) return;
    this.#down = true;
    this.#logger[this.#level](this.#failedEvent, fields());
  }

  /** A success: ends an outage (logged) if there is one, and says whether it did. */
  recovered(fields: LogFields = {}): boolean {
    if (!this.#down) return false;
    this.#down = false;
    this.#logger.info(this.#recoveredEvent, fields);
    return true;
  }
}
