// streamGenerateContent (`alt=sse`) → vendor chat chunks. Every event is a partial
// GenerateContentResponse: text parts are deltas, function calls arrive whole, the finishReason
// marks the end and usageMetadata (on the last event) the token counts.
import { brokenStreamFrame, ChatChunkWriter, type ChatUsage, DONE_FRAME, unixNow } from '../shared/chat-chunks.ts';
import { SseParser } from '../shared/sse.ts';
import { jsonErrorAnswer, UNSAID_ERROR } from '../shared/error-answer.ts';
import { eventJson, sseOpening } from '../shared/stream-opening.ts';
import type { KeptThinking, StreamMapper } from '../types.ts';
import { finishReasonOf, rpcNameOf, statusOfRpc, toolCallId, usageOf, type GenerateContentResponse, type UsageMetadata } from './response.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';
import { collectSignedCall } from './kept-thinking.ts';
import { handOver, ThinkingCollector } from '../shared/kept-thinking.ts';
import { messagesErrorEvent } from '../shared/messages-call.ts';

export interface GenerateContentStreamOptions {
  provider: string;
  model: string;
  includeUsage: boolean;
  strict: boolean;
  /** Hears the answer's thought signatures with its tool call ids, once the stream finished (kept-thinking.ts); null: nobody keeps them. */
  keepThinking?: ((kept: KeptThinking) => void) | null;
}

export class GenerateContentStreamMapper implements StreamMapper {
  readonly #parser = new SseParser();
  readonly #writer: ChatChunkWriter;
  readonly #options: GenerateContentStreamOptions;
  #tools = 0;
  #usage: UsageMetadata | undefined;
  #finished = false;
  #failed = false;
  /** The calls' signatures as they come, when they are kept. */
  readonly #signatures: ThinkingCollector | null;

  constructor(options: GenerateContentStreamOptions) {
    this.#options = options;
    this.#signatures = options.keepThinking === undefined || options.keepThinking === null ? null : new ThinkingCollector();
    this.#writer = new ChatChunkWriter({ id: `chatcmpl-${toolCallId().slice(5)}`, model: options.model, created: unixNow(), includeUsage: options.includeUsage });
  }

  push(chunk: Buffer): string {
    let out = '';
    for (const event of this.#parser.push(chunk)) out += this.#event(event.data);
    return out;
  }

  end(): string {
    let out = '';
    for (const event of this.#parser.end()) out += this.#event(event.data);
    if (this.#failed) return out;
    if (!this.#finished) return out + brokenStreamFrame(this.#options.provider, 'the provider stream ended without a finish reason');
    return out + this.#writer.usage(usageOf(this.#usage)) + DONE_FRAME;
  }

  /** The usage the stream reported, once it finished (what the usage chunk carries, asked for or not). */
  usage(): ChatUsage | null {
    return this.#finished && !this.#failed && this.#usage !== undefined ? usageOf(this.#usage) : null;
  }

  #event(data: string): string {
    if (this.#failed) return '';
    let event: GenerateContentResponse & { error?: { code?: unknown; message?: unknown; status?: unknown } };
    try {
      event = parseJson(data) as typeof event;
    } catch {
      this.#failed = true;
      return brokenStreamFrame(this.#options.provider, 'an event is not JSON');
    }
    const writer = this.#writer;
    if (event.error !== undefined) {
      this.#failed = true;
      const { code, message, status } = event.error;
      return writer.error(this.#options.provider, statusOfRpc(status, code), typeof message === 'string' ? message : UNSAID_ERROR, typeof status === 'string' ? status : null);
    }
    if (typeof event.responseId === 'string') writer.id = event.responseId;
    if (typeof event.modelVersion === 'string') writer.model = event.modelVersion;
    if (event.usageMetadata !== undefined) this.#usage = event.usageMetadata;
    let out = writer.start();
    const candidate = event.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall !== undefined) {
        const id = toolCallId();
        if (this.#signatures !== null) collectSignedCall(this.#signatures, id, part);
        out += writer.toolCallStart(this.#tools++, id, part.functionCall.name, JSON.stringify(part.functionCall.args ?? {}));
      } else if (typeof part.text === 'string') {
        if (part.thought === true) {
          if (!this.#options.strict) out += writer.reasoning(part.text);
        } else out += writer.text(part.text);
      }
    }
    if (candidate?.finishReason !== undefined && !this.#finished) {
      this.#finished = true;
      const signatures = this.#signatures;
      if (signatures !== null) handOver(this.#options.keepThinking, () => signatures.kept());
      out += writer.finish(finishReasonOf(candidate.finishReason, this.#tools > 0));
    } else if (event.promptFeedback?.blockReason !== undefined && !this.#finished) {
      this.#finished = true;
      out += writer.finish('content_filter');
    }
    return out;
  }
}

/**
 * A generateContent stream whose first event is an error (`{"error": {"code", "message",
 * "status"}}`, the API's own error body) is the error answer of that status. Through the
 * pass-through its client reads the body as it is: the event's own when it is the API's shape
 * whole, else that shape with what it lacks filled in. A Claude model's stream (rawPredict's, the
 * messages API's events) that opens with its `error` event is that error answer, as on the messages
 * API; generateContent sends no named events.
 */
export const generateContentStreamOpening = sseOpening((event) => {
  const claudes = messagesErrorEvent(event);
  if (claudes !== null) return claudes;
  if (!event.data.includes('"error"')) return null;
  const error = eventJson(event)?.error as { code?: unknown; message?: unknown; status?: unknown } | null | undefined;
  if (typeof error !== 'object' || error === null) return null;
  const status = statusOfRpc(error.status, error.code);
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : null;
  const whole = message !== null && typeof error.status === 'string' && error.code === status;
  const body = whole ? event.data : JSON.stringify({ error: { code: status, message: message ?? UNSAID_ERROR, status: typeof error.status === 'string' ? error.status : rpcNameOf(status) } });
  return jsonErrorAnswer(status, body);
});
