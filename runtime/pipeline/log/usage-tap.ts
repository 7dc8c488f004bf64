// Reads token usage and the answering model from an answer as it goes to the client: the JSON body's
// `usage`, or for a stream the final usage chunk; when a stream carries none, an estimate (about four
// characters a token) marked as such. Bounded: a JSON body past MAX_JSON_BYTES is not parsed, and an
// SSE line is kept only up to MAX_LINE_BYTES.
import { StringDecoder } from 'node:string_decoder';
import type { RequestRecord, TokenUsage } from '../../core/request-record.ts';
import type { BodyTap } from '../body-tap.ts';
import { peekMember, peekTrailingMember } from './json-peek.ts';
import { redactBody } from '../../telemetry/redact.ts';

const MAX_JSON_BYTES = 4 * 1024 * 1024;
export const MAX_LINE_BYTES = 1024 * 1024;
const CHARS_PER_TOKEN = 4;

export type PriceFn = (provider: string, model: string | null, usage: TokenUsage) => number | null;

/** Called once the usage is known (the body completed). */
export type UsageDone = (record: RequestRecord) => void;

export class JsonUsageTap implements BodyTap {
  readonly #record: RequestRecord;
  readonly #done: UsageDone;
  readonly #bodyBytes: number;
  #chunks: Buffer[] = [];
  #bytes = 0;

  /** `bodyBytes`: keep the (redacted) body in the record up to that many bytes; 0: do not. */
  constructor(record: RequestRecord, done: UsageDone, bodyBytes = 0) {
    this.#record = record;
    this.#done = done;
    this.#bodyBytes = bodyBytes;
  }

  write(chunk: Buffer | string): void {
    if (this.#bytes > MAX_JSON_BYTES) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#bytes += bytes.length;
    this.#chunks.push(bytes);
  }

  end(): void {
    const chunks = this.#chunks;
    this.#chunks = [];
    if (this.#bytes <= MAX_JSON_BYTES && chunks.length > 0) {
      // Two members, not the whole answer: a full parse would cost several microseconds per request.
      // A body that is not a JSON object (audio, an odd answer) simply has neither.
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      const model = peekMember(body, 'model');
      if (typeof model === 'string') this.#record.modelAnswered = model;
      const usage = usageOf(peekTrailingMember(body, 'usage'));
      if (usage !== null) this.#record.usage = usage;
      if (this.#bodyBytes > 0) this.#record.responseBody = redactBody(body, this.#bodyBytes);
    }
    this.#done(this.#record);
  }
}

export class SseUsageTap implements BodyTap {
  readonly #record: RequestRecord;
  readonly #done: UsageDone;
  readonly #inputEstimate: number;
  readonly #bodyBytes: number;
  /** A character split across two chunks is decoded whole. */
  readonly #decoder = new StringDecoder('utf8');
  #kept = '';
  /** The pieces of the line not ended yet, joined only once it ends: rescanning or re-concatenating it per chunk made a long line quadratic. */
  #pending: string[] = [];
  #pendingLength = 0;
  /** The current line grew past MAX_LINE_BYTES: skipped up to its end. */
  #overlong = false;
  #usage: TokenUsage | null = null;
  #outputChars = 0;

  /** `inputChars`: the length of the request's text, for the estimate when the stream reports no usage. */
  constructor(record: RequestRecord, inputChars: number, done: UsageDone, bodyBytes = 0) {
    this.#record = record;
    this.#done = done;
    this.#inputEstimate = Math.ceil(inputChars / CHARS_PER_TOKEN);
    this.#bodyBytes = bodyBytes;
  }

  write(chunk: Buffer | string): void {
    this.#text(typeof chunk === 'string' ? chunk : this.#decoder.write(chunk));
  }

  end(): void {
    this.#text(this.#decoder.end());
    if (!this.#overlong && this.#pending.length > 0) this.#line(this.#pending.join(''));
    this.#pending = [];
    const record = this.#record;
    if (this.#bodyBytes > 0) record.responseBody = redactBody(this.#kept, this.#bodyBytes);
    if (this.#usage !== null) record.usage = this.#usage;
    else {
      const output = Math.ceil(this.#outputChars / CHARS_PER_TOKEN);
      record.usage = { inputTokens: this.#inputEstimate, outputTokens: output, cachedInputTokens: 0, totalTokens: this.#inputEstimate + output, estimated: true };
    }
    this.#done(record);
  }

  #text(piece: string): void {
    if (piece === '') return;
    // One byte past the cap is enough for redactBody to mark the body as truncated.
    if (this.#bodyBytes > 0 && this.#kept.length <= this.#bodyBytes) this.#kept += piece.slice(0, this.#bodyBytes + 1 - this.#kept.length);
    let start = 0;
    for (let nl = piece.indexOf('\n'); nl !== -1; nl = piece.indexOf('\n', start)) {
      if (this.#overlong) this.#overlong = false;
      else if (this.#pending.length === 0) this.#line(piece.slice(start, nl));
      else this.#line(this.#pending.join('') + piece.slice(start, nl));
      if (this.#pending.length > 0) {
        this.#pending = [];
        this.#pendingLength = 0;
      }
      start = nl + 1;
    }
    if (start === piece.length || this.#overlong) return;
    this.#pendingLength += piece.length - start;
    if (this.#pendingLength > MAX_LINE_BYTES) {
      this.#overlong = true;
      this.#pending = [];
      this.#pendingLength = 0;
    } else this.#pending.push(start === 0 ? piece : piece.slice(start));
  }

  #line(line: string): void {
    if (!line.startsWith('data:')) return;
    const data = line.slice(line.charCodeAt(5) === 0x20 ? 6 : 5).trimEnd();
    if (data === '' || data === '[DONE]') return;
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return;
    }
    if (chunk === null || typeof chunk !== 'object') return;
    const fields = chunk as Record<string, unknown>;
    if (this.#record.modelAnswered === null && typeof fields.model === 'string') this.#record.modelAnswered = fields.model;
    const usage = usageOf(fields.usage);
    if (usage !== null) this.#usage = usage;
    const choices = fields.choices;
    if (Array.isArray(choices)) {
      for (const choice of choices) {
        const delta = (choice as { delta?: { content?: unknown }; text?: unknown } | null)?.delta?.content ?? (choice as { text?: unknown } | null)?.text;
        if (typeof delta === 'string') this.#outputChars += delta.length;
      }
    }
  }
}

/** The vendor's usage object (chat/completions/embeddings, and the Responses API's names) → TokenUsage. */
export function usageOf(value: unknown): TokenUsage | null {
  if (value === null || typeof value !== 'object') return null;
  const u = value as Record<string, unknown>;
  const input = count(u.prompt_tokens) ?? count(u.input_tokens);
  const output = count(u.completion_tokens) ?? count(u.output_tokens) ?? 0;
  if (input === null) return null;
  const details = (u.prompt_tokens_details ?? u.input_tokens_details) as Record<string, unknown> | null | undefined;
  const cached = count(details?.cached_tokens) ?? 0;
  return { inputTokens: input, outputTokens: output, cachedInputTokens: cached, totalTokens: count(u.total_tokens) ?? input + output, estimated: false };
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}
