// A realtime session's usage (the vendor's realtime API over a WebSocket through the pass-through,
// runtime/upstream/tunnel.ts): the provider's frames to the client are read as they go by, each
// `response.done` event's `response.usage` is added up, and the model is the one the session's
// `session.created` (or a later `session.updated`) names. Told once the session ended, either way:
// a session has no completion but its end, and what its responses reported is what they used. A
// session whose responses reported nothing used nothing (its usage is zeros, not an estimate).
// Not counted: the input transcription a session may turn on, which the provider bills under the
// transcription model (its own events carry that usage).
import { recordedModel, type RequestRecord, type TokenUsage } from '../../core/request-record.ts';
import type { BodyTap } from '../../core/body-tap.ts';
import { WebSocketTextMessages } from '../../core/web-socket-messages.ts';
import { realtimeUsageOf } from './usage-of.ts';
import type { UsageDone } from './usage-tap.ts';

/** An event longer than this is skipped: a `response.done` holds its response's output as text (transcripts), never its audio. */
const MAX_EVENT_BYTES = 4 * 1024 * 1024;

/** Searched for before an event is parsed: most of a session's events are audio deltas. */
const RESPONSE_DONE = Buffer.from('"response.done"');
const SESSION_EVENT = /^session\.(?:created|updated)$/;
const SESSION_MARK = Buffer.from('"session.');

export class RealtimeUsageTap implements BodyTap {
  readonly #record: RequestRecord;
  readonly #done: UsageDone;
  readonly #messages = new WebSocketTextMessages(MAX_EVENT_BYTES);
  readonly #usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0, estimated: false };
  #told = false;

  constructor(record: RequestRecord, done: UsageDone) {
    this.#record = record;
    this.#done = done;
  }

  write(chunk: Buffer | string): void {
    for (const message of this.#messages.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) this.#read(message);
  }

  #read(message: Buffer): void {
    const done = message.includes(RESPONSE_DONE);
    if (!done && !message.includes(SESSION_MARK)) return;
    let event: { type?: unknown; response?: { usage?: unknown }; session?: { model?: unknown } };
    try {
      event = JSON.parse(message.toString('utf8'));
    } catch {
      return;
    }
    if (event === null || typeof event !== 'object') return;
    if (done && event.type === 'response.done') {
      const usage = realtimeUsageOf(event.response?.usage);
      if (usage !== null) this.#add(usage);
    } else if (typeof event.type === 'string' && SESSION_EVENT.test(event.type) && typeof event.session?.model === 'string') {
      this.#record.modelAnswered = recordedModel(event.session.model);
    }
  }

  #add(usage: TokenUsage): void {
    const sum = this.#usage;
    sum.inputTokens += usage.inputTokens;
    sum.outputTokens += usage.outputTokens;
    sum.cachedInputTokens += usage.cachedInputTokens;
    sum.totalTokens += usage.totalTokens;
    // The only parts realtimeUsageOf reads beside those.
    if (usage.audioInputTokens !== undefined) sum.audioInputTokens = (sum.audioInputTokens ?? 0) + usage.audioInputTokens;
    if (usage.imageInputTokens !== undefined) sum.imageInputTokens = (sum.imageInputTokens ?? 0) + usage.imageInputTokens;
    if (usage.audioOutputTokens !== undefined) sum.audioOutputTokens = (sum.audioOutputTokens ?? 0) + usage.audioOutputTokens;
  }

  end(): void {
    if (this.#told) return;
    this.#told = true;
    this.#record.usage = this.#usage;
    this.#done(this.#record);
  }

  brokeOff(): void {
    this.end();
  }
}
