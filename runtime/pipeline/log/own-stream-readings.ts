// How the usage taps read a stream in a family's own dialect, event by event, whatever carries the
// events (SSE, or AWS's binary event stream): the answering model, the counts the stream reports,
// whether it came to its end, and the text it generated (for a stream cut before its last count:
// the input it counted and the output estimated from that text). One reading per dialect.
import { type RequestRecord, recordedModel, type TokenUsage } from '../../core/request-record.ts';
import { MessagesUsageCount } from '../../providers/anthropic/response.ts';
import type { GenerateContentResponse } from '../../providers/cloudb/response.ts';
import { INVOCATION_METRICS } from '../../providers/cloudc/own-stream-events.ts';
import { converseUsageOf, cutShortUsage, generateContentUsageOf, invocationMetricsUsageOf, messagesUsageOf } from './usage-of.ts';

export abstract class OwnStreamReading {
  protected readonly record: RequestRecord;
  /** The counts so far: the whole answer's once the stream came to its end. */
  protected counted: TokenUsage | null = null;
  /** The stream came to its end (its last count is in). */
  protected final = false;
  #outputBytes = 0;

  constructor(record: RequestRecord) {
    this.record = record;
  }

  /** One event: its JSON, and its type where the framing names it apart (the event stream's `:event-type`). */
  abstract event(fields: Record<string, unknown>, type: string | undefined): void;

  /** The stream's usage: its counts once it came to its end; before that, cut short (cutShortUsage); null when it counted nothing. */
  usage(): TokenUsage | null {
    return this.final ? this.counted : cutShortUsage(this.counted, this.#outputBytes);
  }

  /** Bytes of text the stream generated. */
  get outputBytes(): number {
    return this.#outputBytes;
  }

  protected answeredBy(model: unknown): void {
    if (this.record.modelAnswered === null && typeof model === 'string') this.record.modelAnswered = recordedModel(model);
  }

  /** Output the model generated, for the estimate: text, tool input and reasoning. */
  protected generated(text: unknown): void {
    if (typeof text === 'string') this.#outputBytes += Buffer.byteLength(text, 'utf8');
  }
}

/**
 * The messages API's stream: message_start (model, input and cache counts), content_block_delta
 * (text, thinking, tool input), message_delta (the output's count: the end).
 */
class MessagesStreamReading extends OwnStreamReading {
  readonly #count = new MessagesUsageCount();

  event(fields: Record<string, unknown>): void {
    if (fields.type === 'message_start') {
      const message = fields.message as { model?: unknown; usage?: unknown } | null | undefined;
      if (message === null || typeof message !== 'object') return;
      this.answeredBy(message.model);
      this.#count.add(message.usage);
      this.counted = messagesUsageOf(this.#count.usage);
    } else if (fields.type === 'message_delta') {
      this.#count.add(fields.usage);
      this.counted = messagesUsageOf(this.#count.usage);
      this.final = true;
    } else if (fields.type === 'content_block_delta') {
      const delta = fields.delta as { text?: unknown; thinking?: unknown; partial_json?: unknown } | null | undefined;
      if (delta === null || typeof delta !== 'object') return;
      this.generated(delta.text);
      this.generated(delta.thinking);
      this.generated(delta.partial_json);
    }
  }
}

/**
 * generateContent's stream: each event a partial answer with its model, its usageMetadata (the
 * counts so far) and its candidates' parts; a candidate's finishReason is the end.
 */
class GenerateContentStreamReading extends OwnStreamReading {
  event(fields: Record<string, unknown>): void {
    const event = fields as GenerateContentResponse;
    this.answeredBy(event.modelVersion);
    const usage = generateContentUsageOf(event.usageMetadata);
    if (usage !== null) this.counted = usage;
    const candidates = event.candidates;
    if (!Array.isArray(candidates)) return;
    for (const candidate of candidates) {
      if (candidate === null || typeof candidate !== 'object') continue;
      if (typeof candidate.finishReason === 'string') this.final = true;
      const parts = candidate.content?.parts;
      if (!Array.isArray(parts)) continue;
      for (const part of parts) {
        if (part === null || typeof part !== 'object') continue;
        this.generated(part.text);
        if (part.functionCall !== null && typeof part.functionCall === 'object') this.generated(JSON.stringify(part.functionCall.args ?? {}));
      }
    }
  }
}

/**
 * converse-stream's events, named by the framing: contentBlockDelta (text, tool input, reasoning),
 * metadata (the usage, last: the end). Its answer names no model.
 */
class ConverseStreamReading extends OwnStreamReading {
  event(fields: Record<string, unknown>, type: string | undefined): void {
    if (type === 'metadata') {
      this.counted = converseUsageOf(fields.usage);
      this.final = this.counted !== null;
      return;
    }
    if (type !== 'contentBlockDelta') return;
    const delta = fields.delta as { text?: unknown; toolUse?: { input?: unknown } | null; reasoningContent?: { text?: unknown } | null } | null | undefined;
    if (delta === null || typeof delta !== 'object') return;
    this.generated(delta.text);
    this.generated(delta.toolUse?.input);
    this.generated(delta.reasoningContent?.text);
  }
}

/** How deep an invoke chunk's strings are counted as generated text (its own format is unknown). */
const CHUNK_TEXT_DEPTH = 3;

/**
 * Cloud C's invoke stream of a model whose events are its vendor's own format: the service's counts
 * come in the last chunk's `amazon-bedrock-invocationMetrics` (the end). Which member holds the text
 * is each vendor's own (`outputText`, `generation`, `outputs[].text`, …), so a stream cut before its
 * last chunk is estimated from every string its chunks carried.
 */
class InvokeStreamReading extends OwnStreamReading {
  event(fields: Record<string, unknown>): void {
    const usage = invocationMetricsUsageOf(fields[INVOCATION_METRICS]);
    if (usage !== null) {
      this.counted = usage;
      this.final = true;
      return;
    }
    this.#strings(fields, CHUNK_TEXT_DEPTH);
  }

  #strings(value: unknown, depth: number): void {
    if (typeof value === 'string') this.generated(value);
    else if (depth > 0 && value !== null && typeof value === 'object') for (const member of Object.values(value)) this.#strings(member, depth - 1);
  }
}

/** The reading of a stream in `dialect`. */
export function ownStreamReading(dialect: 'messages' | 'generateContent' | 'converse' | 'invoke', record: RequestRecord): OwnStreamReading {
  switch (dialect) {
    case 'messages': return new MessagesStreamReading(record);
    case 'generateContent': return new GenerateContentStreamReading(record);
    case 'converse': return new ConverseStreamReading(record);
    case 'invoke': return new InvokeStreamReading(record);
  }
}
