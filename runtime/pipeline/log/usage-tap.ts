// Reads token usage and the answering model from an answer as it goes to the client: the JSON body's
// `usage`, or for a stream the final usage chunk; when a stream carries none, the usage its provider
// reported on the way (a translated stream's, which the client did not ask to see), else an estimate
// (runtime/core/token-estimate.ts) marked as such, for the answers the gateway estimates (chat,
// completions, embeddings, Responses, and the pass-through calls of a family's own chat API, read in
// its own dialect; not audio or images, which report or stay unknown). Bounded:
// of a JSON body past MAX_JSON_BYTES only its start and its end are kept (its `model` and `usage`
// are read there), and an SSE event past MAX_EVENT_CHARS is dropped (the events after it are still
// read).
import { type RequestRecord, recordedModel, type TokenUsage } from '../../core/request-record.ts';
import { SseParser } from '../../providers/shared/sse.ts';
import { spokenTranscript } from '../../providers/shared/chat.ts';
import type { BodyTap } from '../../core/body-tap.ts';
import { peekLeadingAndTrailing, peekMember, peekMemberInTail, peekTrailingMember } from './json-peek.ts';
import { REDACT_MARGIN, redactBody } from '../../telemetry/redact.ts';
import { type ChatDialect, converseUsageOf, estimatedUsage, generateContentUsageOf, invokeHeadersUsageOf, messagesUsageOf, type UsageDialect, usageOf } from './usage-of.ts';
import { type OwnStreamReading, ownStreamReading } from './own-stream-readings.ts';
import { PredictImageCount, PredictTokenCounts } from './predict-usage.ts';

const MAX_JSON_BYTES = 4 * 1024 * 1024;
/** What a longer body keeps of its start (a chat answer's `model`) and of its end (`usage`; an embeddings list's `model` too). */
const KEPT_EDGE_BYTES = 64 * 1024;
export const MAX_EVENT_CHARS = 1024 * 1024;
/**
 * An event a stream without an estimate (images, transcriptions) may carry whole: an image model's
 * last event holds the whole image in base64 (a few MB) with its usage after it.
 */
const MAX_REPORTED_EVENT_CHARS = 64 * 1024 * 1024;

export type PriceFn = (provider: string, model: string | null, usage: TokenUsage) => number | null;

/** Called once the usage is known (the body completed). */
export type UsageDone = (record: RequestRecord) => void;

/** Usage counted across a whole answer as it goes by, or told by its headers. */
interface UsageCount {
  write(bytes: Buffer): void;
  usage(): TokenUsage | null;
}

/** Where a dialect's JSON answer names its model (null: it names none) and its usage, and how its usage reads. */
interface MemberReading {
  model: string | null;
  usage: string;
  read(value: unknown): TokenUsage | null;
}

const VENDOR_READING: MemberReading = { model: 'model', usage: 'usage', read: usageOf };

/** An answer no member of which holds its usage: counted across the whole answer, or told by its headers. Names no model. */
interface CountedReading {
  counts(headers: Readonly<Record<string, unknown>>): UsageCount;
}

const JSON_READINGS: Readonly<Record<UsageDialect, MemberReading | CountedReading>> = {
  vendor: VENDOR_READING,
  messages: { model: 'model', usage: 'usage', read: messagesUsageOf },
  generateContent: { model: 'modelVersion', usage: 'usageMetadata', read: generateContentUsageOf },
  converse: { model: null, usage: 'usage', read: converseUsageOf },
  // Summed as it goes by (predict-usage.ts).
  predict: { counts: () => new PredictTokenCounts() },
  imagePredict: { counts: () => new PredictImageCount() },
  // Its body is its model vendor's own format; the service's counts are in its headers.
  invoke: { counts: (headers) => ({ write: () => {}, usage: () => invokeHeadersUsageOf(headers) }) },
};

export class JsonUsageTap implements BodyTap {
  readonly #record: RequestRecord;
  readonly #done: UsageDone;
  readonly #bodyBytes: number;
  #chunks: Buffer[] = [];
  #bytes = 0;
  /** Past MAX_JSON_BYTES: the body's first KEPT_EDGE_BYTES, and chunks holding at least its last KEPT_EDGE_BYTES. */
  #head: Buffer | null = null;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  /** How its members are read; null when its usage is counted instead (`#counts`). */
  readonly #reading: MemberReading | null;
  readonly #counts: UsageCount | null;

  /** `bodyBytes`: keep the (redacted) body in the record up to that many bytes; 0: do not. `headers`: the answer's. */
  constructor(record: RequestRecord, done: UsageDone, bodyBytes = 0, dialect: UsageDialect = 'vendor', headers: Readonly<Record<string, unknown>> = {}) {
    this.#record = record;
    this.#done = done;
    this.#bodyBytes = bodyBytes;
    const reading = JSON_READINGS[dialect];
    this.#reading = 'counts' in reading ? null : reading;
    this.#counts = 'counts' in reading ? reading.counts(headers) : null;
  }

  write(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#bytes += bytes.length;
    if (this.#counts !== null) {
      this.#counts.write(bytes);
      // Counted as it goes by: nothing of it is kept but for the record's body (megabytes of vectors or images otherwise held for nothing).
      if (this.#bodyBytes === 0) return;
    }
    if (this.#head !== null) {
      this.#keepTail(bytes);
      return;
    }
    this.#chunks.push(bytes);
    if (this.#bytes <= MAX_JSON_BYTES) return;
    // Too long to keep whole (a large embeddings list, say): its start, and from now on its end.
    const kept = Buffer.concat(this.#chunks);
    this.#chunks = [];
    this.#head = Buffer.from(kept.subarray(0, KEPT_EDGE_BYTES));
    this.#keepTail(kept);
  }

  #keepTail(chunk: Buffer): void {
    // A copy of a long chunk's end, so the chunk itself is not held.
    const bytes = chunk.length > KEPT_EDGE_BYTES ? Buffer.from(chunk.subarray(chunk.length - KEPT_EDGE_BYTES)) : chunk;
    this.#tail.push(bytes);
    this.#tailBytes += bytes.length;
    while (this.#tailBytes - this.#tail[0].length >= KEPT_EDGE_BYTES) this.#tailBytes -= this.#tail.shift()!.length;
  }

  end(): void {
    const chunks = this.#chunks;
    this.#chunks = [];
    const reading = this.#reading;
    if (reading === null) {
      const usage = this.#counts!.usage();
      if (usage !== null) this.#record.usage = usage;
      if (this.#bodyBytes > 0 && this.#head === null && chunks.length > 0) this.#record.responseBody = redactBody(Buffer.concat(chunks), this.#bodyBytes);
    } else if (this.#head !== null) this.#readEdges(reading);
    else if (chunks.length > 0) {
      // Two members, not the whole answer: a full parse would cost several microseconds per request.
      // A body that is not a JSON object (audio, an odd answer) simply has neither.
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      // A JSON array of answers (a generateContent stream without alt=sse): its last one's.
      const elements = opensArray(body) ? withoutArrayClose(body) : null;
      const [model, used] = elements !== null
        ? [reading.model === null ? undefined : peekMemberInTail(elements, reading.model), peekMemberInTail(elements, reading.usage)]
        : reading.model === null ? [undefined, peekTrailingMember(body, reading.usage)] : peekLeadingAndTrailing(body, reading.model, reading.usage);
      if (typeof model === 'string') this.#record.modelAnswered = recordedModel(model);
      const usage = reading.read(used);
      if (usage !== null) this.#record.usage = usage;
      if (this.#bodyBytes > 0) this.#record.responseBody = redactBody(body, this.#bodyBytes);
    }
    this.#done(this.#record);
  }

  /**
   * A body past MAX_JSON_BYTES: its usage from its end (or its start), its model from its start (a
   * chat answer's) or its end (an embeddings list's, after the vectors). Charged like any other
   * answer: a large embeddings request is the usual way to get one, and went uncounted.
   */
  #readEdges(reading: MemberReading): void {
    const joined = Buffer.concat(this.#tail);
    const kept = joined.subarray(Math.max(0, joined.length - KEPT_EDGE_BYTES));
    this.#tail = [];
    const head = this.#head!;
    // A JSON array of answers: its last one's, in the tail.
    const array = opensArray(head);
    const tail = array ? withoutArrayClose(kept) ?? kept : kept;
    const model = reading.model === null ? undefined : (array ? undefined : peekMember(head, reading.model)) ?? peekMemberInTail(tail, reading.model);
    if (typeof model === 'string') this.#record.modelAnswered = recordedModel(model);
    const usage = array ? reading.read(peekMemberInTail(tail, reading.usage)) : usageAtEdges(head, tail, reading);
    if (usage !== null) this.#record.usage = usage;
  }

  /** What arrived is read the same way: a whole answer the client left during has its usage; a cut one has none. */
  brokeOff(): void {
    this.end();
  }
}

export class SseUsageTap implements BodyTap {
  readonly #record: RequestRecord;
  readonly #done: UsageDone;
  readonly #inputEstimate: (() => number) | null;
  readonly #reported: () => unknown;
  readonly #bodyBytes: number;
  /** An event past the cap is dropped and the events after it are read (the final usage comes last). */
  readonly #parser: SseParser;
  /** The body as sent, up to a margin past the cap, when bodies are logged. */
  #kept: Buffer[] = [];
  #keptBytes = 0;
  /** More arrived than was kept: the logged body is marked as truncated, however short redaction made it. */
  #partial = false;
  #usage: TokenUsage | null = null;
  #outputBytes = 0;
  /** A stream in a family's own dialect: its reading; null for the vendor's. */
  readonly #own: OwnStreamReading | null;

  /**
   * `inputEstimate`: the request's input tokens, estimated; asked only when the stream reports no
   * usage; null: such a stream's usage is not estimated (it stays unknown). `reported`: the
   * vendor-shaped usage the provider reported outside the client's stream (runtime/pipeline/exchange.ts
   * UpstreamTry), asked at the end when the stream had no usage chunk.
   */
  constructor(record: RequestRecord, inputEstimate: (() => number) | null, done: UsageDone, bodyBytes = 0, reported: () => unknown = () => null, dialect: 'vendor' | ChatDialect = 'vendor') {
    this.#own = dialect === 'vendor' ? null : ownStreamReading(dialect, record);
    this.#record = record;
    this.#done = done;
    this.#inputEstimate = inputEstimate;
    this.#reported = reported;
    this.#bodyBytes = bodyBytes;
    this.#parser = new SseParser(inputEstimate === null ? MAX_REPORTED_EVENT_CHARS : MAX_EVENT_CHARS, 'skip');
  }

  write(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    // A margin past the cap: redactBody sees a secret the cap cuts whole (and marks the body truncated).
    const keep = this.#bodyBytes + REDACT_MARGIN;
    if (this.#bodyBytes > 0 && this.#keptBytes < keep) {
      const piece = bytes.subarray(0, keep - this.#keptBytes);
      this.#kept.push(piece);
      this.#keptBytes += piece.length;
      if (piece.length < bytes.length) this.#partial = true;
    } else if (this.#bodyBytes > 0 && bytes.length > 0) this.#partial = true;
    for (const event of this.#parser.push(bytes)) this.#data(event.data, event.event);
  }

  end(): void {
    for (const event of this.#parser.end()) this.#data(event.data, event.event);
    const record = this.#record;
    if (this.#bodyBytes > 0) record.responseBody = redactBody(Buffer.concat(this.#kept), this.#bodyBytes, this.#partial);
    const own = this.#own;
    const usage = own === null ? (this.#usage ?? usageOf(this.#reported())) : own.usage();
    if (usage !== null) record.usage = usage;
    else if (this.#inputEstimate !== null) record.usage = estimatedUsage(this.#inputEstimate(), own === null ? this.#outputBytes : own.outputBytes);
    this.#done(record);
  }

  /**
   * A stream cut short (the client left, the provider broke off) was generated, and billed, up to
   * there: its usage chunk if one came, else the estimate of what was streamed, as at a normal end.
   * Not counting it would let a client stop reading just before the end and never be charged.
   */
  brokeOff(): void {
    this.end();
  }

  #data(data: string, name: string | undefined): void {
    if (data === '' || data === '[DONE]') return;
    // Without an estimate only the usage is wanted: a long event (an image, a partial one) is looked
    // into at its ends for it, not parsed whole (milliseconds of the serving thread for a few MB).
    if (this.#inputEstimate === null && data.length > KEPT_EDGE_BYTES) {
      const usage = usageAtEdges(Buffer.from(data.slice(0, KEPT_EDGE_BYTES)), Buffer.from(data.slice(-KEPT_EDGE_BYTES)));
      if (usage !== null) this.#usage = usage;
      return;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return;
    }
    if (chunk === null || typeof chunk !== 'object') return;
    let fields = chunk as Record<string, unknown>;
    if (this.#own !== null) {
      this.#own.event(fields, name);
      return;
    }
    // The Responses API's stream: what the model generated in its delta events, its model and usage
    // in the response object of the last event (response.completed, incomplete or failed).
    if (typeof fields.type === 'string' && fields.type.startsWith('response.')) {
      if (GENERATED_DELTAS.has(fields.type)) this.#generated(fields.delta);
      const response = fields.response;
      if (response === null || typeof response !== 'object') return;
      fields = response as Record<string, unknown>;
    }
    if (this.#record.modelAnswered === null && typeof fields.model === 'string') this.#record.modelAnswered = recordedModel(fields.model);
    const usage = usageOf(fields.usage);
    if (usage !== null) this.#usage = usage;
    const choices = fields.choices;
    if (Array.isArray(choices)) {
      for (const choice of choices) {
        if (choice === null || typeof choice !== 'object') continue;
        const { delta, text } = choice as { delta?: ChunkDelta | null; text?: unknown };
        this.#generated(text);
        if (delta === null || typeof delta !== 'object') continue;
        this.#generated(delta.content);
        // One of the two names: some servers send the same text under both.
        this.#generated(typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '' ? delta.reasoning_content : delta.reasoning);
        this.#generated(delta.refusal);
        // A spoken answer: its transcript is the least it generated (the audio tokens are more).
        this.#generated(spokenTranscript(delta));
        if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) this.#generated((call as { function?: { arguments?: unknown } } | null)?.function?.arguments);
      }
    }
  }

  /** Output the model generated, for the estimate: every kind it is billed for, tool arguments and reasoning included. */
  #generated(text: unknown): void {
    if (typeof text === 'string') this.#outputBytes += Buffer.byteLength(text, 'utf8');
  }
}

/**
 * What a chat chunk's delta may carry that the model generated. Reasoning text comes as
 * `reasoning_content` (DeepSeek, and the gateway's translations), `reasoning` (vLLM, Groq,
 * OpenRouter), or both with the same text (vLLM during its rename, proxies serving either reader).
 */
interface ChunkDelta {
  content?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
  refusal?: unknown;
  tool_calls?: unknown;
}

/** The usage of a JSON text too long to read whole, from its kept start and end: the vendor puts usage last, another provider may put it first. */
function usageAtEdges(head: Buffer, tail: Buffer, reading: MemberReading = VENDOR_READING): TokenUsage | null {
  return reading.read(peekMemberInTail(tail, reading.usage) ?? peekMember(head, reading.usage));
}

/** Whether the JSON text `body` starts is an array. */
function opensArray(body: Buffer): boolean {
  let start = 0;
  while (start < body.length && isJsonSpace(body[start])) start += 1;
  return body[start] === 0x5b;
}

/**
 * The end of a JSON array's text without its closing bracket, so its last element ends it (what
 * peekMemberInTail reads that element's members from); null when it does not end with one.
 */
function withoutArrayClose(body: Buffer): Buffer | null {
  let end = body.length;
  while (end > 0 && isJsonSpace(body[end - 1])) end -= 1;
  return end > 0 && body[end - 1] === 0x5d ? body.subarray(0, end - 1) : null;
}

function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** Responses stream events whose `delta` is generated output (audio deltas are audio, not text). */
const GENERATED_DELTAS: ReadonlySet<string> = new Set([
  'response.output_text.delta', 'response.refusal.delta', 'response.function_call_arguments.delta', 'response.custom_tool_call_input.delta',
  'response.reasoning_text.delta', 'response.reasoning_summary_text.delta', 'response.code_interpreter_call_code.delta',
]);
