// The serving thread's side of default.jsonSchema's validation thread (json-schema-worker.ts): one
// thread per process, started by the first validation. The validation being run has a time limit:
// past it the thread is ended (the only way to stop a validation), that validation fails as a check
// that could not run, and the ones sent after it go to a new thread. A thread that dies any other way
// (out of its memory bound) is treated the same. The thread is shared by every request, so:
// - a validation's time is charged to its request's check budget (check-budget.ts), which also
//   bounds its limit, and one that finds that budget spent, or its request ended, is not sent;
// - a request has at most one validation sent at a time, and requests take turns (round robin): one
//   request's fifty slow schemas do not queue ahead of everyone else's, while the validations of many
//   requests are sent ahead together, so the thread never waits for a message between them.
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { EMBEDDED_FILES } from '../../../../compiler/config/embedded-files.ts';
import { BudgetSpent, type CheckBudget } from '../check-budget.ts';
import type { JudgeMessage, JudgeReply } from './json-schema-worker.ts';

/**
 * How long one validation may run. A schema a person wrote validates an answer in well under 1 ms;
 * the margin is for a machine busy enough to starve the thread (a stopped validation fails its check).
 */
export const JSON_SCHEMA_TIME_LIMIT_MS = 1000;
/** The thread's heap bound: a validation that would build more is ended, not the process. */
const THREAD_HEAP_MB = 64;
/** Validations (of as many requests) sent ahead to the thread at most: enough that it never idles between them. */
const SENT_AHEAD = 64;
/**
 * The shortest limit a validation gets: one sent while its request had budget left, whose request's
 * other checks spent the rest before its turn came, still gets this long before the thread is ended.
 */
const MIN_LIMIT_MS = 10;

export interface Judged {
  holds: boolean;
  /** The first thing the schema refused, when it did not hold. */
  problem: string | null;
}

/** Whose validation it is: its time is charged to `budget`, and it is dropped once `signal` aborted. */
export interface JudgedFor {
  budget: CheckBudget;
  signal: AbortSignal;
}

interface Pending {
  message: JudgeMessage;
  owner: JudgedFor | null;
  resolve(judged: Judged): void;
  reject(error: Error): void;
}

/** One request's validations waiting to be sent, in the order asked; a request is known by its budget (one per request). */
interface Turn {
  budget: CheckBudget | null;
  waiting: Pending[];
}

export class JsonSchemaThread {
  readonly #limitMs: number;
  #worker: Worker | null = null;
  /** Where the thread answers: a port of its own, so that a time limit can first take in answers already sent. */
  #replies: MessagePort | null = null;
  /** Whether the thread has loaded: its start-up is not a validation's time. */
  #ready = false;
  /** Sent and unanswered, in the order sent: the first is the one the thread runs. */
  readonly #sent: Pending[] = [];
  /** Requests with validations waiting and none sent, in the order they take turns. */
  readonly #turns: Turn[] = [];
  /** Every request with a validation sent or waiting, by its budget. */
  readonly #turnOf = new Map<CheckBudget, Turn>();
  /** Requests with a validation sent. */
  readonly #busy = new Set<CheckBudget>();
  #timer: NodeJS.Timeout | null = null;
  /** When the running validation's clock started (performance.now()). */
  #clockStarted = 0;
  /** Whether the running validation's limit is its request's budget rather than the thread's limit. */
  #limitIsBudget = false;
  #nextId = 0;

  constructor(limitMs = JSON_SCHEMA_TIME_LIMIT_MS) {
    this.#limitMs = limitMs;
  }

  /** Whether `value` fits the schema given as canonical JSON text (the worker's cache key); `owner`: the request asking. */
  judge(schema: string, value: unknown, owner: JudgedFor | null = null): Promise<Judged> {
    return new Promise<Judged>((resolve, reject) => {
      const pending: Pending = { message: { id: this.#nextId++, schema, value }, owner, resolve, reject };
      const budget = owner?.budget ?? null;
      const turn = budget === null ? undefined : this.#turnOf.get(budget);
      if (turn !== undefined) {
        // Already taking turns (waiting in #turns, or with one sent): this one waits behind its others.
        turn.waiting.push(pending);
      } else {
        const fresh: Turn = { budget, waiting: [pending] };
        if (budget !== null) this.#turnOf.set(budget, fresh);
        this.#turns.push(fresh);
      }
      this.#send();
    });
  }

  /** Ends the thread; validations still queued fail. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    this.#replies?.close();
    this.#replies = null;
    this.#stopClock();
    const error = new Error('the gateway is stopping');
    for (const pending of this.#sent.splice(0)) pending.reject(error);
    for (const turn of this.#turns.splice(0)) for (const pending of turn.waiting.splice(0)) pending.reject(error);
    for (const turn of this.#turnOf.values()) for (const pending of turn.waiting.splice(0)) pending.reject(error);
    this.#turnOf.clear();
    this.#busy.clear();
    await worker?.terminate();
  }

  /** Sends the next validation of each request in turn, up to SENT_AHEAD; drops those of requests whose budget is spent or that ended. */
  #send(): void {
    while (this.#sent.length < SENT_AHEAD && this.#turns.length > 0) {
      const turn = this.#turns[0]!;
      const pending = turn.waiting.shift()!;
      const refusal = refusalOf(pending.owner);
      let sent = refusal === null;
      if (sent) {
        try {
          this.#thread().postMessage(pending.message);
        } catch (error) {
          // The value could not be copied to the thread (it came from JSON, so this is not expected).
          pending.reject(error as Error);
          sent = false;
        }
      } else pending.reject(refusal!);
      if (!sent) {
        // Its request's next one is judged the same way at once.
        if (turn.waiting.length === 0) this.#endTurn(turn);
        continue;
      }
      this.#turns.shift();
      this.#sent.push(pending);
      if (turn.budget !== null) this.#busy.add(turn.budget);
      if (this.#sent.length === 1 && this.#ready) this.#startClock();
    }
  }

  /** A validation is answered (or failed): its request's next one takes its turn at the back. */
  #done(pending: Pending): void {
    const budget = pending.owner?.budget;
    if (budget === undefined) return;
    this.#busy.delete(budget);
    const turn = this.#turnOf.get(budget);
    if (turn === undefined) return;
    if (turn.waiting.length > 0) this.#turns.push(turn);
    else this.#turnOf.delete(budget);
  }

  /** A turn at the front of #turns with nothing left to send: its request is forgotten unless one of its validations is still sent. */
  #endTurn(turn: Turn): void {
    this.#turns.shift();
    if (turn.budget !== null && !this.#busy.has(turn.budget)) this.#turnOf.delete(turn.budget);
  }

  #thread(): Worker {
    if (this.#worker !== null) return this.#worker;
    const { port1: replies, port2: answerTo } = new MessageChannel();
    const worker = new Worker(workerUrl(), {
      workerData: { gatewayThread: 'json-schema', replies: answerTo },
      transferList: [answerTo],
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    });
    this.#ready = false;
    // Idle, the thread must not keep a process alive; while a validation runs, the clock's timer does.
    worker.unref();
    replies.on('message', (reply: JudgeReply) => this.#answered(worker, reply));
    replies.unref();
    this.#replies?.close();
    this.#replies = replies;
    worker.on('error', (error) => this.#lost(worker, `the validation thread failed: ${error.message}`));
    worker.on('exit', (code) => this.#lost(worker, `the validation thread stopped (exit code ${code})`));
    this.#worker = worker;
    return worker;
  }

  #answered(worker: Worker, reply: JudgeReply): void {
    if (worker !== this.#worker) return;
    if ('ready' in reply) {
      this.#ready = true;
      if (this.#sent.length > 0) this.#startClock();
      return;
    }
    const pending = this.#sent[0];
    if (pending === undefined || pending.message.id !== reply.id) return;
    if ('compiled' in reply) {
      // Compiling depends on the schema alone, which the config's check bounded: not the validation's time.
      this.#stopClock();
      this.#startClock();
      return;
    }
    this.#sent.shift();
    this.#finishClock(pending);
    if (this.#sent.length > 0) this.#startClock();
    this.#done(pending);
    if ('failed' in reply) pending.reject(new Error(reply.failed));
    else pending.resolve({ holds: reply.holds, problem: reply.problem });
    this.#send();
  }

  /**
   * The running validation fails with `reason`, or as unjudged for its request's budget when that was
   * its limit (`byClock`); the thread is ended and the ones sent after it go to a new one.
   */
  #lost(worker: Worker, reason: string, byClock = false): void {
    if (worker !== this.#worker) return;
    this.#worker = null;
    void worker.terminate();
    const byBudget = byClock && this.#limitIsBudget;
    const pending = this.#sent.shift();
    if (pending !== undefined) {
      this.#finishClock(pending);
      this.#done(pending);
      pending.reject(byBudget && pending.owner !== null ? new BudgetSpent(pending.owner.budget) : new Error(reason));
    }
    this.#stopClock();
    // Sent to the thread that ended: sent again, first, to the next.
    const resend = this.#sent.splice(0);
    for (const again of resend) {
      this.#thread().postMessage(again.message);
      this.#sent.push(again);
    }
    this.#send();
  }

  /** Stops the clock and charges the time the validation ran to its request's budget. */
  #finishClock(pending: Pending): void {
    if (this.#timer !== null) pending.owner?.budget.charge(this.#clockStarted);
    this.#stopClock();
  }

  #startClock(): void {
    const worker = this.#worker!;
    const replies = this.#replies!;
    const budget = this.#sent[0]!.owner?.budget;
    const limitMs = budget === undefined ? this.#limitMs : Math.min(this.#limitMs, Math.max(MIN_LIMIT_MS, budget.remainingMs));
    this.#limitIsBudget = limitMs < this.#limitMs;
    this.#clockStarted = performance.now();
    const timer: NodeJS.Timeout = setTimeout(() => {
      // The answer may have come while this thread was busy: timers run before messages are read.
      // One taken in here that answers or restarts the clock (a compile done) means it is not time.
      for (let reply = receiveMessageOnPort(replies); reply !== undefined && this.#timer === timer; reply = receiveMessageOnPort(replies)) {
        this.#answered(worker, reply.message as JudgeReply);
      }
      if (this.#timer === timer) this.#lost(worker, `validating took longer than ${this.#limitMs} ms, the limit of one validation, and was stopped`, true);
    }, limitMs);
    this.#timer = timer;
  }

  #stopClock(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}

/** Why a validation may not be sent: its request's budget is spent, or its request ended; null when it may. */
function refusalOf(owner: JudgedFor | null): Error | null {
  if (owner === null) return null;
  if (!owner.budget.open) return new BudgetSpent(owner.budget);
  if (owner.signal.aborted) return new Error('not run: the request ended first');
  return null;
}

let shared: JsonSchemaThread | null = null;

/** The process's validation thread, created with the first route that has a jsonSchema check. */
export function jsonSchemaThread(): JsonSchemaThread {
  shared ??= new JsonSchemaThread();
  return shared;
}

/**
 * In a one-file build, the file itself (its entry, bin/gateway.js, runs the thread's module when
 * started with `gatewayThread`: Ajv and the regex engine are in the file already); the source file otherwise.
 */
function workerUrl(): URL {
  return EMBEDDED_FILES === null ? new URL('./json-schema-worker.ts', import.meta.url) : new URL(import.meta.url);
}
