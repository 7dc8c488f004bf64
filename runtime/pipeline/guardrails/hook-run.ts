// One request's hooks as they run: the results of both phases (hook_results), the feedback, and the
// async hooks still judging. Kept in the exchange's state by the request-phase hook stage; the
// attempt-phase stage of each try replaces that try's results, so the answer that goes out carries the
// results of the attempt that made it.
import type { HookResult, RequestRecord } from '../../core/request-record.ts';
import type { Exchange } from '../exchange.ts';
import type { UpstreamResponse } from '../../upstream/types.ts';
import type { FeedbackEntry, PhaseRun } from './run-hooks.ts';
import { CheckBudget } from './check-budget.ts';

const STATE_KEY = 'hooks';

export class HookRun {
  /** The root's before-request hooks and input guardrails. */
  readonly before: HookResult[] = [];
  /** The answering attempt's own before hooks (a target whose list differs from the root's). */
  attemptBefore: HookResult[] = [];
  /** The answering attempt's after-request hooks and output guardrails. */
  after: HookResult[] = [];
  readonly feedback: FeedbackEntry[] = [];
  attemptFeedback: FeedbackEntry[] = [];
  /** Which phase denied, when one did. */
  deniedIn: 'before' | 'after' | null = null;
  /** The answer an output phase read whole (a JSON object): hook_results go into its bytes without a second read. */
  answer: { response: UpstreamResponse; bytes: Buffer } | null = null;
  /** The time every phase and try of this request may spend in checks. */
  readonly budget = new CheckBudget();
  #pending: Array<Promise<void>> = [];

  static of(x: Exchange): HookRun | undefined {
    return x.state.get(STATE_KEY) as HookRun | undefined;
  }

  static start(x: Exchange): HookRun {
    const run = new HookRun();
    x.state.set(STATE_KEY, run);
    return run;
  }

  /** A new try: the previous one's results are not this answer's. */
  newAttempt(): void {
    this.attemptBefore = [];
    this.after = [];
    this.attemptFeedback = [];
    this.answer = null;
    if (this.deniedIn === 'after') this.deniedIn = null;
  }

  /** Async hooks, and the judging of a stream that flows: the record waits for them. Never rejects. */
  track(work: Promise<void>): void {
    this.#pending.push(work.catch(() => undefined));
  }

  /** Some hook that was waited for failed and none denied: the answer goes out as 246. */
  get failed(): boolean {
    const failing = (r: HookResult): boolean => !r.async && !r.verdict && !r.deny;
    return this.before.some(failing) || this.attemptBefore.some(failing) || this.after.some(failing);
  }

  /** What the log record and hook_results show. Arrays are shared: async results arriving later land in the record before it is written. */
  results(): NonNullable<RequestRecord['hookResults']> {
    return { beforeRequestHooks: this.attemptBefore.length === 0 ? this.before : [...this.before, ...this.attemptBefore], afterRequestHooks: this.after };
  }

  /** Writes results and feedback into the record; the record waits for pending work. */
  record(record: RequestRecord): void {
    const results = this.results();
    const feedback = this.attemptFeedback.length === 0 ? this.feedback : [...this.feedback, ...this.attemptFeedback];
    record.hookResults = results;
    record.feedback = feedback;
    if (this.#pending.length > 0) {
      const pending = this.#pending;
      // Later results (async hooks) are pushed into the arrays above as they finish.
      record.settling = Promise.all(pending).then(() => undefined);
    }
  }

  /** Adds a phase's outcome: `into` is the result list it belongs to. */
  add(phase: PhaseRun, into: HookResult[], feedback: FeedbackEntry[]): void {
    for (const result of phase.results) into.push(result);
    for (const entry of phase.feedback) feedback.push(entry);
  }
}
