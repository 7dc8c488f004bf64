// Reads token usage from cloud C's converse-stream as it goes to the client through the pass-through:
// AWS's binary event stream (application/vnd.amazon.eventstream), its last event (`metadata`)
// carrying the usage. A stream cut before it (the client left, the provider broke off) has the
// estimate of its input and of the text, tool input and reasoning its contentBlockDelta events carried. Framing
// that is corrupt ends the reading there: what was read until then stands. The body is not kept for
// the log: it is binary.
import type { RequestRecord, TokenUsage } from '../../core/request-record.ts';
import { EventStreamDecoder, type EventMessage } from '../../providers/cloudc/event-stream.ts';
import type { BodyTap } from '../body-tap.ts';
import { converseUsageOf, estimatedUsage, type UsageDone } from './usage-tap.ts';

export class EventStreamUsageTap implements BodyTap {
  readonly #record: RequestRecord;
  readonly #inputEstimate: () => number;
  readonly #done: UsageDone;
  readonly #decoder = new EventStreamDecoder();
  /** The framing broke: nothing after it is read. */
  #corrupt = false;
  #usage: TokenUsage | null = null;
  #outputBytes = 0;

  /** `inputEstimate`: the request's input tokens, estimated; asked only when the stream reports no usage. */
  constructor(record: RequestRecord, inputEstimate: () => number, done: UsageDone) {
    this.#record = record;
    this.#inputEstimate = inputEstimate;
    this.#done = done;
  }

  write(chunk: Buffer | string): void {
    if (this.#corrupt) return;
    let messages: EventMessage[];
    try {
      messages = this.#decoder.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    } catch {
      this.#corrupt = true;
      return;
    }
    for (const message of messages) this.#message(message);
  }

  end(): void {
    const record = this.#record;
    record.usage = this.#usage ?? estimatedUsage(this.#inputEstimate(), this.#outputBytes);
    this.#done(record);
  }

  /**
   * A stream cut short was generated, and billed, up to there: read as at its end (its usage comes
   * only in its last event, so a stream cut before that has the estimate).
   */
  brokeOff(): void {
    this.end();
  }

  #message(message: EventMessage): void {
    if (message.headers[':message-type'] !== 'event') return;
    const type = message.headers[':event-type'];
    if (type !== 'contentBlockDelta' && type !== 'metadata') return;
    let payload: { delta?: ConverseDelta | null; usage?: unknown } | null;
    try {
      payload = JSON.parse(message.payload.toString('utf8')) as typeof payload;
    } catch {
      return;
    }
    if (payload === null || typeof payload !== 'object') return;
    if (type === 'metadata') {
      this.#usage = converseUsageOf(payload.usage);
      return;
    }
    const delta = payload.delta;
    if (delta === null || typeof delta !== 'object') return;
    this.#generated(delta.text);
    this.#generated(delta.toolUse?.input);
    this.#generated(delta.reasoningContent?.text);
  }

  /** Output the model generated, for the estimate. */
  #generated(text: unknown): void {
    if (typeof text === 'string') this.#outputBytes += Buffer.byteLength(text, 'utf8');
  }
}

/** What a contentBlockDelta event's delta may carry that the model generated. */
interface ConverseDelta {
  text?: unknown;
  toolUse?: { input?: unknown } | null;
  reasoningContent?: { text?: unknown } | null;
}
