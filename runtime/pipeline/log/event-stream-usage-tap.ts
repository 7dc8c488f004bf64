// Reads token usage from an answer in AWS's binary event stream (application/vnd.amazon.eventstream)
// as it goes to the client through cloud C's pass-through: converse-stream, whose events are named
// by their `:event-type` (its last, `metadata`, carries the usage), and a Claude model's
// invoke-with-response-stream, whose `chunk` events each carry one event of the messages API's
// stream as base64 `bytes` (another model's carry its vendor's own, the service's counts added to
// the last). A stream cut before its last count has the input it counted, else the
// estimate of the request's, and the estimate of the text it carried. Framing that is corrupt ends
// the reading there: what was read until then stands. The body is not kept for the log: it is binary.
import type { RequestRecord } from '../../core/request-record.ts';
import { EventStreamDecoder, type EventMessage } from '../../providers/cloudc/event-stream.ts';
import { ownStreamEventOf } from '../../providers/cloudc/own-stream-events.ts';
import type { BodyTap } from '../../core/body-tap.ts';
import { type OwnStreamReading, ownStreamReading } from './own-stream-readings.ts';
import { estimatedUsage } from './usage-of.ts';
import type { UsageDone } from './usage-tap.ts';

export class EventStreamUsageTap implements BodyTap {
  readonly #record: RequestRecord;
  readonly #inputEstimate: () => number;
  readonly #done: UsageDone;
  readonly #decoder = new EventStreamDecoder();
  readonly #reading: OwnStreamReading;
  /** `chunk` events carry the model's own stream (invoke), not converse's events. */
  readonly #chunked: boolean;
  /** The framing broke: nothing after it is read. */
  #corrupt = false;

  /**
   * `dialect`: `converse` (converse-stream), `messages` (a Claude model's invoke stream) or `invoke`
   * (another model's). `inputEstimate`: the request's input tokens, estimated; asked only when the
   * stream counted none.
   */
  constructor(record: RequestRecord, dialect: 'converse' | 'messages' | 'invoke', inputEstimate: () => number, done: UsageDone) {
    this.#record = record;
    this.#inputEstimate = inputEstimate;
    this.#done = done;
    this.#reading = ownStreamReading(dialect, record);
    this.#chunked = dialect !== 'converse';
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
    record.usage = this.#reading.usage() ?? estimatedUsage(this.#inputEstimate(), this.#reading.outputBytes);
    this.#done(record);
  }

  /** A stream cut short was generated, and billed, up to there: read as at its end. */
  brokeOff(): void {
    this.end();
  }

  #message(message: EventMessage): void {
    const { json, type } = ownStreamEventOf(message, this.#chunked);
    if (json !== null) this.#reading.event(json, type);
  }
}
