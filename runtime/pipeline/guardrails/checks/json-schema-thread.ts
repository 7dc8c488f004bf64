// The serving thread's side of default.jsonSchema's validation thread (json-schema-worker.ts): one
// thread per process, started by the first validation, validations run in the order asked, one sent
// at a time. The one being run has a time limit: past it the thread is ended (the only way to stop a
// validation), that validation fails as a check that could not run, and the rest go to a new thread.
// A thread that dies any other way (out of its memory bound) is treated the same. The thread is
// shared by every request, so a validation's time is charged to its request's check budget
// (check-budget.ts), which also bounds its limit: one request's checks cannot hold the thread past
// that budget while other requests' validations wait behind them. A validation whose request's
// budget is spent, or whose request ended, by its turn is not run.
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

export class JsonSchemaThread {
  readonly #limitMs: number;
  #worker: Worker | null = null;
  /** Where the thread answers: a port of its own, so that a time limit can first take in answers already sent. */
  #replies: MessagePort | null = null;
  /** Whether the thread has loaded: its start-up is not a validation's time. */
  #ready = false;
  /** Asked and unanswered, in the order asked: the first is the one sent to the thread. */
  readonly #queue: Pending[] = [];
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
      this.#queue.push({ message: { id: this.#nextId++, schema, value }, owner, resolve, reject });
      if (this.#queue.length === 1) this.#sendFirst();
    });
  }

  /** Ends the thread; validations still queued fail. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    this.#replies?.close();
    this.#replies = null;
    this.#stopClock();
    for (const pending of this.#queue.splice(0)) pending.reject(new Error('the gateway is stopping'));
    await worker?.terminate();
  }

  /** Sends the first validation that may still run; the ones before it whose request's budget is spent or whose request ended fail unrun. */
  #sendFirst(): void {
    for (let first = this.#queue[0]; first !== undefined; first = this.#queue[0]) {
      const refusal = first.owner === null ? null : !first.owner.budget.open ? new BudgetSpent(first.owner.budget) : first.owner.signal.aborted ? new Error('not run: the request ended first') : null;
      if (refusal === null) {
        try {
          this.#thread().postMessage(first.message);
        } catch (error) {
          // The value could not be copied to the thread (it came from JSON, so this is not expected).
          this.#queue.shift();
          first.reject(error as Error);
          continue;
        }
        if (this.#ready) this.#startClock();
        return;
      }
      this.#queue.shift();
      first.reject(refusal);
    }
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
      if (this.#queue.length > 0) this.#startClock();
      return;
    }
    const pending = this.#queue[0];
    if (pending === undefined || pending.message.id !== reply.id) return;
    if ('compiled' in reply) {
      // Compiling depends on the schema alone, which the config's check bounded: not the validation's time.
      this.#stopClock();
      this.#startClock();
      return;
    }
    this.#queue.shift();
    this.#finishClock(pending);
    if ('failed' in reply) pending.reject(new Error(reply.failed));
    else pending.resolve({ holds: reply.holds, problem: reply.problem });
    this.#sendFirst();
  }

  /**
   * The running validation fails with `reason`, or as unjudged for its request's budget when that was
   * its limit (`byClock`); the thread is ended and the rest go to a new one.
   */
  #lost(worker: Worker, reason: string, byClock = false): void {
    if (worker !== this.#worker) return;
    this.#worker = null;
    void worker.terminate();
    const byBudget = byClock && this.#limitIsBudget;
    const pending = this.#queue.shift();
    if (pending !== undefined) {
      this.#finishClock(pending);
      pending.reject(byBudget && pending.owner !== null ? new BudgetSpent(pending.owner.budget) : new Error(reason));
    }
    this.#stopClock();
    this.#sendFirst();
  }

  /** Stops the clock and charges the time the validation ran to its request's budget. */
  #finishClock(pending: Pending): void {
    if (this.#timer !== null) pending.owner?.budget.charge(this.#clockStarted);
    this.#stopClock();
  }

  #startClock(): void {
    const worker = this.#worker!;
    const replies = this.#replies!;
    const budget = this.#queue[0]!.owner?.budget;
    const limitMs = budget === undefined ? this.#limitMs : Math.min(this.#limitMs, budget.remainingMs);
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
