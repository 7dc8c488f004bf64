// A write that runs one at a time and is asked for more often than it finishes: a timer's tick, a full
// batch, a stop. A call while it runs gets the run after it, shared by every call meanwhile, instead
// of a run each: against a store that takes seconds to fail, a timer's ticks otherwise queued a run
// apiece, and they went on back to back long after (a stop's last write waited behind them all).

export class OneAtATime {
  readonly #work: () => Promise<void>;
  #running: Promise<void> | null = null;
  #next: Promise<void> | null = null;

  /** `work` must not reject: a failure is its own to keep and report. */
  constructor(work: () => Promise<void>) {
    this.#work = work;
  }

  get running(): boolean {
    return this.#running !== null;
  }

  /** Runs the work now, or once after the run in progress; resolves when that run is done. */
  run(): Promise<void> {
    if (this.#running !== null) {
      this.#next ??= this.#running.then(() => {
        this.#next = null;
        return this.run();
      });
      return this.#next;
    }
    // Started now (what it takes is what was there at the call), and marked running before it starts:
    // a call from within its first synchronous steps must not start a second one.
    let settle!: (work: Promise<void>) => void;
    const running = new Promise<void>((resolve) => (settle = resolve));
    this.#running = running;
    settle(this.#work().finally(() => {
      this.#running = null;
    }));
    return running;
  }
}
