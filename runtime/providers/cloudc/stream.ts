// converse-stream's binary event stream → vendor chat chunks. Events by `:event-type`:
// messageStart, contentBlockStart (tool use), contentBlockDelta (text, tool input, reasoning),
// contentBlockStop, messageStop (stop reason), metadata (usage). `:message-type` exception or error
// ends the stream with an error frame.
import { brokenStreamFrame, ChatChunkWriter, type ChatUsage, DONE_FRAME, unixNow } from '../shared/chat-chunks.ts';
import type { KeptThinking, StreamMapper } from '../types.ts';
import { handOver, inIndexOrder, keptOf } from '../shared/kept-thinking.ts';
import { collectConverseBlock } from './kept-thinking.ts';
import { EventStreamDecoder, EventStreamError, type EventMessage } from './event-stream.ts';
import { completionId, finishReasonOf, statusOfException, usageOf, type ConverseUsage } from './response.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';
import { jsonErrorAnswer, UNSAID_ERROR } from '../shared/error-answer.ts';
import { contentTypeIs, OPENING_BYTES, type OpeningJudge } from '../shared/stream-opening.ts';

export interface ConverseStreamOptions {
  provider: string;
  model: string;
  includeUsage: boolean;
  strict: boolean;
  /** Hears the answer's signed reasoning before its tool calls, once the stream stopped (kept-thinking.ts); null: nobody keeps it. */
  keepThinking?: ((kept: KeptThinking) => void) | null;
}

export class ConverseStreamMapper implements StreamMapper {
  readonly #decoder = new EventStreamDecoder();
  readonly #writer: ChatChunkWriter;
  readonly #options: ConverseStreamOptions;
  readonly #toolIndex = new Map<number, number>();
  #tools = 0;
  #usage: ConverseUsage | undefined;
  #stopped = false;
  #failed = false;
  /** The content blocks as their events open and fill them, when the answer's reasoning is kept. */
  readonly #blocks: Map<number, Record<string, any>> | null;

  constructor(options: ConverseStreamOptions) {
    this.#options = options;
    this.#blocks = options.keepThinking === undefined || options.keepThinking === null ? null : new Map();
    this.#writer = new ChatChunkWriter({ id: completionId(), model: options.model, created: unixNow(), includeUsage: options.includeUsage });
  }

  push(chunk: Buffer): string {
    if (this.#failed) return '';
    let messages: EventMessage[];
    try {
      messages = this.#decoder.push(chunk);
    } catch (error) {
      this.#failed = true;
      return brokenStreamFrame(this.#options.provider, error instanceof EventStreamError ? `corrupt event stream (${error.message})` : 'corrupt event stream');
    }
    let out = '';
    for (const message of messages) out += this.#message(message);
    return out;
  }

  end(): string {
    if (this.#failed) return '';
    if (!this.#stopped || this.#decoder.pending > 0) return brokenStreamFrame(this.#options.provider, 'the provider stream ended before messageStop');
    return this.#writer.usage(usageOf(this.#usage, this.#options.strict)) + DONE_FRAME;
  }

  /** The usage the stream reported, once it stopped (what the usage chunk carries, asked for or not). */
  usage(): ChatUsage | null {
    return this.#stopped && !this.#failed && this.#decoder.pending === 0 && this.#usage !== undefined ? usageOf(this.#usage, this.#options.strict) : null;
  }

  /** A reasoning block's text, signature or redacted content as its deltas come. */
  #reasoning(index: unknown, delta: Record<string, unknown> | null): void {
    if (typeof index !== 'number' || delta === null || typeof delta !== 'object') return;
    let block = this.#blocks!.get(index);
    if (block === undefined) this.#blocks!.set(index, (block = { reasoningContent: {} }));
    const reasoning = block.reasoningContent;
    if (reasoning === undefined) return;
    if (typeof delta.redactedContent === 'string') reasoning.redactedContent = (reasoning.redactedContent ?? '') + delta.redactedContent;
    if (typeof delta.text === 'string' || typeof delta.signature === 'string') {
      const text = (reasoning.reasoningText ??= { text: '' });
      if (typeof delta.text === 'string') text.text += delta.text;
      if (typeof delta.signature === 'string') text.signature = (text.signature ?? '') + delta.signature;
    }
  }

  #message(message: EventMessage): string {
    if (this.#failed) return '';
    const writer = this.#writer;
    const exception = exceptionOf(message);
    if (exception !== null) {
      this.#failed = true;
      return writer.error(this.#options.provider, statusOfException(exception.type), exception.text, exception.type);
    }
    let payload: Record<string, any>;
    try {
      payload = parseJson(message.payload.toString('utf8')) as Record<string, any>;
    } catch {
      this.#failed = true;
      return brokenStreamFrame(this.#options.provider, 'an event payload is not JSON');
    }
    switch (message.headers[':event-type']) {
      case 'messageStart':
        return writer.start();
      case 'contentBlockStart': {
        const use = payload.start?.toolUse;
        if (use === undefined) return '';
        if (this.#blocks !== null) this.#blocks.set(payload.contentBlockIndex, { toolUse: { toolUseId: use.toolUseId } });
        const index = this.#tools++;
        this.#toolIndex.set(payload.contentBlockIndex, index);
        return writer.toolCallStart(index, use.toolUseId, use.name);
      }
      case 'contentBlockDelta': {
        const delta = payload.delta ?? {};
        if (this.#blocks !== null && delta.reasoningContent !== undefined) this.#reasoning(payload.contentBlockIndex, delta.reasoningContent);
        if (typeof delta.text === 'string') return writer.text(delta.text);
        if (delta.toolUse !== undefined) {
          const index = this.#toolIndex.get(payload.contentBlockIndex);
          return index === undefined ? '' : writer.toolCallArguments(index, String(delta.toolUse.input ?? ''));
        }
        const reasoning = delta.reasoningContent?.text;
        if (typeof reasoning === 'string' && !this.#options.strict) return writer.reasoning(reasoning);
        return '';
      }
      case 'messageStop':
        this.#stopped = true;
        if (this.#blocks !== null) {
          const blocks = this.#blocks;
          handOver(this.#options.keepThinking, () => keptOf(inIndexOrder(blocks), collectConverseBlock));
        }
        return writer.finish(finishReasonOf(payload.stopReason));
      case 'metadata':
        this.#usage = payload.usage;
        return '';
      default:
        return '';
    }
  }
}

/** converse-stream's content type: AWS's binary event stream. */
export const EVENT_STREAM_TYPE = /^application\/vnd\.amazon\.eventstream/i;

/**
 * A converse stream whose first message is an exception (`throttlingException`, …) is the error
 * answer the API sends for it with a status: `{"message": …}` as the body, its type in
 * `x-amzn-errortype`, where the error mapping reads it (response.ts).
 */
export const converseStreamOpening: OpeningJudge = {
  streams: (headers) => contentTypeIs(headers, EVENT_STREAM_TYPE),
  judge(held) {
    let first: EventMessage | undefined;
    try {
      [first] = new EventStreamDecoder().push(held);
    } catch {
      // Corrupt framing: the stream's mapper reports it as the broken stream it is.
      return 'began';
    }
    if (first === undefined) return held.length >= OPENING_BYTES ? 'began' : 'more';
    const exception = exceptionOf(first);
    if (exception === null) return 'began';
    return jsonErrorAnswer(statusOfException(exception.type), JSON.stringify({ message: exception.text }), { 'x-amzn-errortype': exception.type });
  },
};

/** An exception (or error) message's type and words: its payload's `message`, else its `:error-message` header. Null for an event. */
export function exceptionOf(message: EventMessage): { type: string; text: string } | null {
  const kind = message.headers[':message-type'];
  if (kind !== 'exception' && kind !== 'error') return null;
  const type = String(message.headers[':exception-type'] ?? message.headers[':error-code'] ?? 'internalServerException');
  let text = typeof message.headers[':error-message'] === 'string' ? (message.headers[':error-message'] as string) : '';
  try {
    const payload = parseJson(message.payload.toString('utf8')) as { message?: unknown; Message?: unknown };
    text = String(payload.message ?? payload.Message ?? text);
  } catch {
    // the header message (or none)
  }
  return { type, text: text === '' ? UNSAID_ERROR : text };
}
