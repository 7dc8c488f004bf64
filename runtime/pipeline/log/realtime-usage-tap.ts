// A realtime session's usage (the vendor's realtime API over a WebSocket through the pass-through,
// runtime/upstream/tunnel.ts): the provider's frames to the client are read as they go by, each
// `response.done` event's `response.usage` is added up, and the model is the one the session's
// `session.created` (or a later `session.updated`) names. Told once the session ended, either way:
// a session has no completion but its end, and what its responses reported is what they used. A
// session whose responses reported nothing used nothing (its usage is zeros, not an estimate).
// The input transcription a session may turn on is billed apart, under the transcription model the
// session names: each `conversation.item.input_audio_transcription.completed` event's usage
// (tokens, or seconds for whisper-1) is added up apart, for the log stage to price as that model.
// A transcription session (`?intent=transcription`: its session's type `transcription`, or the
// beta's `transcription_session.*` events) has no model and no responses of its own: its usage is
// its transcription's, and its model the transcription model.
// With bodies logged, the events each way are kept too (session-events.ts): the client's read from
// its frames (BodyTap.sent), which are read only then.
import { recordedModel, type RequestRecord, type TokenUsage } from '../../core/request-record.ts';
import type { BodyTap } from '../../core/body-tap.ts';
import { WebSocketTextMessages } from '../../core/web-socket-messages.ts';
import { SessionEvents } from './session-events.ts';
import { realtimeUsageOf, usageOf } from './usage-of.ts';
import { peekMember } from './json-peek.ts';
import type { UsageDone } from './usage-tap.ts';

/** An event longer than this is skipped: a `response.done` holds its response's output as text (transcripts), never its audio. */
const MAX_EVENT_BYTES = 4 * 1024 * 1024;

/** The events read (most of a session's are audio deltas, never parsed): their `type`, peeked at first. */
const RESPONSE_DONE = 'response.done';
const TRANSCRIPTION_DONE = 'conversation.item.input_audio_transcription.completed';
const READ_TYPES: ReadonlySet<unknown> = new Set([RESPONSE_DONE, TRANSCRIPTION_DONE, 'session.created', 'session.updated', 'transcription_session.created', 'transcription_session.updated']);
/** The beta's events of a transcription session (the GA's say so in their session's `type`). */
const BETA_TRANSCRIPTION_SESSION = /^transcription_session\./;

/** Usage of another model than the record's, priced as that model: a session's input transcription. */
export interface PricedApart {
  /** Null when the session never named it (the usage is then unpriced). */
  model: string | null;
  usage: TokenUsage;
}

/** A realtime session's settings as its events tell them: the model, and the input transcription's (the GA shape, or the beta's). */
interface SessionEvent {
  type?: unknown;
  response?: { usage?: unknown };
  usage?: unknown;
  session?: { type?: unknown; model?: unknown; audio?: { input?: { transcription?: { model?: unknown } | null } }; input_audio_transcription?: { model?: unknown } | null };
}

export class RealtimeUsageTap implements BodyTap {
  readonly #record: RequestRecord;
  readonly #done: UsageDone;
  readonly #messages = new WebSocketTextMessages(MAX_EVENT_BYTES);
  /** With bodies logged: the provider's events (the record's response body), and the client's (its request body), read from the client's frames. */
  readonly #received: SessionEvents | null;
  readonly #sent: SessionEvents | null;
  readonly #clientMessages: WebSocketTextMessages | null;
  readonly #usage: TokenUsage = zeroUsage();
  #transcriptionModel: string | null = null;
  /** The input transcription's usage; null while none was reported. */
  #transcription: TokenUsage | null = null;
  /** A transcription session: its usage is its transcription's. */
  #transcribing = false;
  #told = false;

  /** `bodyBytes`: keep the session's events in the record up to that many bytes each way; 0: do not. */
  constructor(record: RequestRecord, done: UsageDone, bodyBytes = 0) {
    this.#record = record;
    this.#done = done;
    this.#received = bodyBytes > 0 ? new SessionEvents(bodyBytes) : null;
    this.#sent = bodyBytes > 0 ? new SessionEvents(bodyBytes) : null;
    this.#clientMessages = bodyBytes > 0 ? new WebSocketTextMessages(MAX_EVENT_BYTES) : null;
    this.sent = bodyBytes > 0 ? (chunk) => this.#readSent(chunk) : undefined;
  }

  write(chunk: Buffer | string): void {
    for (const message of this.#messages.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) {
      this.#received?.add(message);
      this.#read(message);
    }
  }

  /** The client's bytes, read for its events: only when they are kept (BodyTap.sent). */
  readonly sent: ((chunk: Buffer) => void) | undefined;

  #readSent(chunk: Buffer): void {
    const kept = this.#sent!;
    if (kept.full) return;
    for (const message of this.#clientMessages!.push(chunk)) kept.add(message);
  }

  #read(message: Buffer): void {
    if (!READ_TYPES.has(peekMember(message, 'type'))) return;
    let event: SessionEvent;
    try {
      event = JSON.parse(message.toString('utf8'));
    } catch {
      return;
    }
    if (event === null || typeof event !== 'object') return;
    if (event.type === RESPONSE_DONE) {
      const usage = realtimeUsageOf(event.response?.usage);
      if (usage !== null) add(this.#usage, usage);
    } else if (event.type === TRANSCRIPTION_DONE) {
      const usage = usageOf(event.usage);
      if (usage !== null) add((this.#transcription ??= zeroUsage()), usage);
    } else this.#readSession(event.session, BETA_TRANSCRIPTION_SESSION.test(event.type as string));
  }

  #readSession(session: SessionEvent['session'], transcribing: boolean): void {
    if (session === null || typeof session !== 'object') return;
    if (transcribing || session.type === 'transcription') this.#transcribing = true;
    if (typeof session.model === 'string') this.#record.modelAnswered = recordedModel(session.model);
    const transcription = session.audio?.input?.transcription ?? session.input_audio_transcription;
    if (transcription !== undefined && transcription !== null && typeof transcription.model === 'string') this.#transcriptionModel = transcription.model;
  }

  /** The session's input transcription, once it ended, when priced apart from its usage; null when it reported none. */
  transcription(): PricedApart | null {
    return this.#transcription === null || this.#transcribing ? null : { model: this.#transcriptionModel, usage: this.#transcription };
  }

  end(): void {
    if (this.#told) return;
    this.#told = true;
    if (this.#transcribing) {
      this.#record.usage = this.#transcription ?? zeroUsage();
      if (this.#transcriptionModel !== null) this.#record.modelAnswered = recordedModel(this.#transcriptionModel);
    } else this.#record.usage = this.#usage;
    if (this.#received !== null) {
      this.#record.responseBody = this.#received.text();
      this.#record.requestBody = this.#sent!.text();
    }
    this.#done(this.#record);
  }

  brokeOff(): void {
    this.end();
  }
}

function zeroUsage(): TokenUsage {
  return { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0, estimated: false };
}

/** Adds `usage` to `sum`: the parts a realtime response's or a transcription's usage has (realtimeUsageOf, usageOf). */
function add(sum: TokenUsage, usage: TokenUsage): void {
  sum.inputTokens += usage.inputTokens;
  sum.outputTokens += usage.outputTokens;
  sum.cachedInputTokens += usage.cachedInputTokens;
  sum.totalTokens += usage.totalTokens;
  if (usage.audioInputTokens !== undefined) sum.audioInputTokens = (sum.audioInputTokens ?? 0) + usage.audioInputTokens;
  if (usage.imageInputTokens !== undefined) sum.imageInputTokens = (sum.imageInputTokens ?? 0) + usage.imageInputTokens;
  if (usage.audioOutputTokens !== undefined) sum.audioOutputTokens = (sum.audioOutputTokens ?? 0) + usage.audioOutputTokens;
  if (usage.cachedAudioInputTokens !== undefined) sum.cachedAudioInputTokens = (sum.cachedAudioInputTokens ?? 0) + usage.cachedAudioInputTokens;
  if (usage.audioSeconds !== undefined) sum.audioSeconds = (sum.audioSeconds ?? 0) + usage.audioSeconds;
}
