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
import type { BodyTap } from '../body-tap.ts';
import { peekLeadingAndTrailing, peekMember, peekMemberInTail, peekTrailingMember } from './json-peek.ts';
import { REDACT_MARGIN, redactBody } from '../../telemetry/redact.ts';
import { tokensOfBytes } from '../../core/token-estimate.ts';
import { chatUsageOf, MessagesUsageCount, type MessagesUsage } from '../../providers/anthropic/response.ts';
import { usageOf as generateContentChatUsageOf, type GenerateContentResponse, type UsageMetadata } from '../../providers/cloudb/response.ts';
import { usageOf as converseChatUsageOf, type ConverseUsage } from '../../providers/cloudc/response.ts';

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

/**
 * Whose answers a tap reads: the vendor's shape (chat, completions, embeddings, Responses, audio,
 * images), or a family's own chat API passed through as it is (pipeline/metered-pass-through.ts): the
 * messages API's (`usage` counts prompt-cache reads and writes apart from `input_tokens`; a stream
 * reports usage in message_start and message_delta), cloud B's generateContent (`usageMetadata`
 * and `modelVersion` on the answer, or on each event of a stream; a stream without `alt=sse` is one
 * JSON array of such answers) or cloud C's converse (`usage` on the answer, which names no model; a
 * stream is AWS's binary event stream, read by event-stream-usage-tap.ts).
 */
export type UsageDialect = 'vendor' | 'messages' | 'generateContent' | 'converse';

/** Where a dialect's JSON answer names its model (null: it names none) and its usage, and how its usage reads. */
interface JsonReading {
  model: string | null;
  usage: string;
  read(value: unknown): TokenUsage | null;
}

const JSON_READINGS: Readonly<Record<UsageDialect, JsonReading>> = {
  vendor: { model: 'model', usage: 'usage', read: usageOf },
  messages: { model: 'model', usage: 'usage', read: messagesUsageOf },
  generateContent: { model: 'modelVersion', usage: 'usageMetadata', read: generateContentUsageOf },
  converse: { model: null, usage: 'usage', read: converseUsageOf },
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
  readonly #reading: JsonReading;

  /** `bodyBytes`: keep the (redacted) body in the record up to that many bytes; 0: do not. */
  constructor(record: RequestRecord, done: UsageDone, bodyBytes = 0, dialect: UsageDialect = 'vendor') {
    this.#record = record;
    this.#done = done;
    this.#bodyBytes = bodyBytes;
    this.#reading = JSON_READINGS[dialect];
  }

  write(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#bytes += bytes.length;
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
    if (this.#head !== null) this.#readEdges();
    else if (chunks.length > 0) {
      // Two members, not the whole answer: a full parse would cost several microseconds per request.
      // A body that is not a JSON object (audio, an odd answer) simply has neither.
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      const reading = this.#reading;
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
  #readEdges(): void {
    const joined = Buffer.concat(this.#tail);
    const kept = joined.subarray(Math.max(0, joined.length - KEPT_EDGE_BYTES));
    this.#tail = [];
    const head = this.#head!;
    const reading = this.#reading;
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
  readonly #dialect: UsageDialect;
  /** A messages stream's counts (dialect `messages`). */
  readonly #messages: MessagesUsageCount | null;
  /**
   * A stream in a family's own dialect came to its end: the messages API's message_delta (the
   * output's count) or a generateContent candidate's finishReason. Before it (cut, or left), its
   * counts are the input's and the output's so far.
   */
  #final = false;

  /**
   * `inputEstimate`: the request's input tokens, estimated; asked only when the stream reports no
   * usage; null: such a stream's usage is not estimated (it stays unknown). `reported`: the
   * vendor-shaped usage the provider reported outside the client's stream (runtime/pipeline/exchange.ts
   * UpstreamTry), asked at the end when the stream had no usage chunk.
   */
  constructor(record: RequestRecord, inputEstimate: (() => number) | null, done: UsageDone, bodyBytes = 0, reported: () => unknown = () => null, dialect: UsageDialect = 'vendor') {
    this.#dialect = dialect;
    this.#messages = dialect === 'messages' ? new MessagesUsageCount() : null;
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
    for (const event of this.#parser.push(bytes)) this.#data(event.data);
  }

  end(): void {
    for (const event of this.#parser.end()) this.#data(event.data);
    const record = this.#record;
    if (this.#bodyBytes > 0) record.responseBody = redactBody(Buffer.concat(this.#kept), this.#bodyBytes, this.#partial);
    const usage = this.#dialect === 'vendor' ? (this.#usage ?? usageOf(this.#reported())) : this.#ownUsage();
    if (usage !== null) record.usage = usage;
    else if (this.#inputEstimate !== null) record.usage = estimatedUsage(this.#inputEstimate(), this.#outputBytes);
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

  #data(data: string): void {
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
    if (this.#messages !== null) {
      this.#messagesEvent(this.#messages, fields);
      return;
    }
    if (this.#dialect === 'generateContent') {
      this.#generateContentEvent(fields as GenerateContentResponse);
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

  /** A messages stream's event: its model and counts, and the text its blocks carry (for a stream cut before its output's count). */
  #messagesEvent(count: MessagesUsageCount, fields: Record<string, unknown>): void {
    if (fields.type === 'message_start') {
      const message = fields.message as { model?: unknown; usage?: unknown } | null | undefined;
      if (message === null || typeof message !== 'object') return;
      if (this.#record.modelAnswered === null && typeof message.model === 'string') this.#record.modelAnswered = recordedModel(message.model);
      count.add(message.usage);
      this.#usage = messagesUsageOf(count.usage);
    } else if (fields.type === 'message_delta') {
      count.add(fields.usage);
      this.#usage = messagesUsageOf(count.usage);
      this.#final = true;
    } else if (fields.type === 'content_block_delta') {
      const delta = fields.delta as { text?: unknown; thinking?: unknown; partial_json?: unknown } | null | undefined;
      if (delta === null || typeof delta !== 'object') return;
      this.#generated(delta.text);
      this.#generated(delta.thinking);
      this.#generated(delta.partial_json);
    }
  }

  /**
   * A generateContent event: its model, its usageMetadata (the counts so far; the last event's are
   * the whole answer's), the text its candidates' parts carry, and whether a candidate finished.
   */
  #generateContentEvent(event: GenerateContentResponse): void {
    if (this.#record.modelAnswered === null && typeof event.modelVersion === 'string') this.#record.modelAnswered = recordedModel(event.modelVersion);
    const usage = generateContentUsageOf(event.usageMetadata);
    if (usage !== null) this.#usage = usage;
    const candidates = event.candidates;
    if (!Array.isArray(candidates)) return;
    for (const candidate of candidates) {
      if (candidate === null || typeof candidate !== 'object') continue;
      if (typeof candidate.finishReason === 'string') this.#final = true;
      const parts = candidate.content?.parts;
      if (!Array.isArray(parts)) continue;
      for (const part of parts) {
        if (part === null || typeof part !== 'object') continue;
        this.#generated(part.text);
        if (part.functionCall !== null && typeof part.functionCall === 'object') this.#generated(JSON.stringify(part.functionCall.args ?? {}));
      }
    }
  }

  /**
   * A stream in a family's own dialect: its counts once it came to its end; before that (cut, or
   * left) the input it counted and the output estimated from the text that came; null when it
   * counted nothing (the estimate of the whole then stands in).
   */
  #ownUsage(): TokenUsage | null {
    return this.#final ? this.#usage : cutShortUsage(this.#usage, this.#outputBytes);
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
function usageAtEdges(head: Buffer, tail: Buffer, reading: JsonReading = JSON_READINGS.vendor): TokenUsage | null {
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

/** The gateway's estimate of an answer that reported no usage: its request's input tokens, and the tokens of `outputBytes` of generated text. */
export function estimatedUsage(inputTokens: number, outputBytes: number): TokenUsage {
  const output = tokensOfBytes(outputBytes);
  return { inputTokens, outputTokens: output, cachedInputTokens: 0, totalTokens: inputTokens + output, estimated: true };
}

/**
 * The usage of a stream cut before its last count: the input it counted, and the output it counted
 * or the estimate of what it generated (`outputBytes` of text), whichever is more; marked as
 * estimated. Null when it counted nothing.
 */
export function cutShortUsage(counted: TokenUsage | null, outputBytes: number): TokenUsage | null {
  if (counted === null) return null;
  const output = Math.max(counted.outputTokens, tokensOfBytes(outputBytes));
  return { ...counted, outputTokens: output, totalTokens: counted.inputTokens + output, estimated: true };
}

/** converse's usage → TokenUsage, read as the translation reads it (cache reads and writes counted as input). */
export function converseUsageOf(value: unknown): TokenUsage | null {
  if (value === null || typeof value !== 'object' || typeof (value as ConverseUsage).inputTokens !== 'number') return null;
  return usageOf(converseChatUsageOf(value as ConverseUsage, false));
}

/** generateContent's usageMetadata → TokenUsage, read as the translation reads it (thinking tokens are output, cache reads input). */
export function generateContentUsageOf(value: unknown): TokenUsage | null {
  if (value === null || typeof value !== 'object' || typeof (value as UsageMetadata).promptTokenCount !== 'number') return null;
  return usageOf(generateContentChatUsageOf(value as UsageMetadata));
}

/** The messages API's usage object → TokenUsage, its input counting cache reads and writes as the translation's does (chatUsageOf). */
export function messagesUsageOf(value: unknown): TokenUsage | null {
  if (value === null || typeof value !== 'object' || typeof (value as MessagesUsage).input_tokens !== 'number') return null;
  return usageOf(chatUsageOf(value as MessagesUsage, false));
}

/** Responses stream events whose `delta` is generated output (audio deltas are audio, not text). */
const GENERATED_DELTAS: ReadonlySet<string> = new Set([
  'response.output_text.delta', 'response.refusal.delta', 'response.function_call_arguments.delta', 'response.custom_tool_call_input.delta',
  'response.reasoning_text.delta', 'response.reasoning_summary_text.delta', 'response.code_interpreter_call_code.delta',
]);

/**
 * The vendor's usage object → TokenUsage: chat, completions and embeddings (`prompt_tokens`), the
 * Responses API, images and transcriptions (`input_tokens`; a transcription's details are
 * `input_token_details`). A transcription billed by its length (`"type": "duration"`, whisper) has
 * its seconds and no tokens.
 */
export function usageOf(value: unknown): TokenUsage | null {
  if (value === null || typeof value !== 'object') return null;
  const u = value as Record<string, unknown>;
  if (u.type === 'duration') {
    const seconds = count(u.seconds);
    return seconds === null ? null : { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0, audioSeconds: seconds, estimated: false };
  }
  const input = count(u.prompt_tokens) ?? count(u.input_tokens);
  const output = count(u.completion_tokens) ?? count(u.output_tokens) ?? 0;
  if (input === null) return null;
  const details = (u.prompt_tokens_details ?? u.input_tokens_details ?? u.input_token_details) as Record<string, unknown> | null | undefined;
  const cached = count(details?.cached_tokens) ?? 0;
  const usage: TokenUsage = { inputTokens: input, outputTokens: output, cachedInputTokens: cached, totalTokens: count(u.total_tokens) ?? input + output, estimated: false };
  // Prompt-cache writes, which the translations of the messages API and cloud C name (providers/shared/chat.ts usageOf).
  const written = count(details?.cache_creation_tokens);
  if (written !== null && written > 0) {
    usage.cacheCreationInputTokens = written;
    const hour = count(details?.cache_creation_1h_tokens);
    if (hour !== null && hour > 0) usage.cacheCreation1hInputTokens = hour;
  }
  // An audio model's spoken input and answer, priced apart from text.
  const audioIn = count(details?.audio_tokens);
  if (audioIn !== null && audioIn > 0) usage.audioInputTokens = audioIn;
  const audioOut = count((u.completion_tokens_details as Record<string, unknown> | null | undefined)?.audio_tokens);
  if (audioOut !== null && audioOut > 0) usage.audioOutputTokens = audioOut;
  // An image model's input images (an image edit's), priced apart from the prompt's text.
  const imageIn = count(details?.image_tokens);
  if (imageIn !== null && imageIn > 0) usage.imageInputTokens = imageIn;
  return usage;
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}
