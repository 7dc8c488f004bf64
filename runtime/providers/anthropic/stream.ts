// The messages API's event stream → vendor chat chunks. message_start opens the answer,
// content_block_* carry text, tool calls (input_json_delta) and thinking, message_delta the stop
// reason and output tokens, message_stop ends it; an `error` event ends it with an error frame.
import { brokenStreamFrame, ChatChunkWriter, type ChatUsage, DONE_FRAME, unixNow } from '../shared/chat-chunks.ts';
import { SseParser } from '../shared/sse.ts';
import { statusOfErrorType, UNSAID_ERROR } from '../shared/error-answer.ts';
import { sseOpening } from '../shared/stream-opening.ts';
import { messagesErrorEvent } from '../shared/messages-call.ts';
import type { KeptThinking, StreamMapper } from '../types.ts';
import { handOver, inIndexOrder, keptOf } from '../shared/kept-thinking.ts';
import { collectMessagesBlock } from './kept-thinking.ts';
import { chatUsageOf, finishReasonOf, MessagesUsageCount } from './response.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';

export interface MessagesStreamOptions {
  provider: string;
  model: string;
  includeUsage: boolean;
  strict: boolean;
  /** Hears the answer's signed thinking before its tool calls, once the stream stopped (kept-thinking.ts); null: nobody keeps it. */
  keepThinking?: ((kept: KeptThinking) => void) | null;
}

export class MessagesStreamMapper implements StreamMapper {
  readonly #parser = new SseParser();
  readonly #writer: ChatChunkWriter;
  readonly #options: MessagesStreamOptions;
  /** Content block index → tool call index, for tool_use blocks. */
  readonly #toolIndex = new Map<number, number>();
  #tools = 0;
  /** message_start's usage, with what each message_delta counts again (the output so far; in newer versions the input and cache counts too). */
  readonly #usage = new MessagesUsageCount();
  #stopped = false;
  #failed = false;
  /** The blocks as their events open and fill them, when the answer's thinking is kept. */
  readonly #blocks: Map<number, Record<string, unknown>> | null;

  constructor(options: MessagesStreamOptions) {
    this.#options = options;
    this.#blocks = options.keepThinking === undefined || options.keepThinking === null ? null : new Map();
    this.#writer = new ChatChunkWriter({ id: `chatcmpl-${Date.now().toString(36)}`, model: options.model, created: unixNow(), includeUsage: options.includeUsage });
  }

  push(chunk: Buffer): string {
    let out = '';
    for (const event of this.#parser.push(chunk)) out += this.#event(event.event, event.data);
    return out;
  }

  end(): string {
    let out = '';
    for (const event of this.#parser.end()) out += this.#event(event.event, event.data);
    if (this.#failed) return out;
    if (!this.#stopped) return out + brokenStreamFrame(this.#options.provider, 'the provider stream ended before message_stop');
    return out + DONE_FRAME;
  }

  /** The usage the stream reported, once it ended with message_stop (what the usage chunk carries, asked for or not). */
  usage(): ChatUsage | null {
    return this.#stopped && !this.#failed ? chatUsageOf(this.#usage.usage, this.#options.strict) : null;
  }

  #event(name: string, data: string): string {
    if (this.#failed || this.#stopped) return '';
    let payload: Record<string, any>;
    try {
      payload = parseJson(data) as Record<string, any>;
    } catch {
      this.#failed = true;
      return brokenStreamFrame(this.#options.provider, `an event is not JSON (${name})`);
    }
    const writer = this.#writer;
    switch (payload.type ?? name) {
      case 'message_start': {
        const message = payload.message ?? {};
        if (typeof message.id === 'string') writer.id = message.id;
        if (typeof message.model === 'string') writer.model = message.model;
        this.#usage.add(message.usage);
        return writer.start();
      }
      case 'content_block_start': {
        const block = payload.content_block ?? {};
        if (this.#blocks !== null && typeof payload.index === 'number') this.#blocks.set(payload.index, { ...block });
        if (block.type === 'tool_use') {
          const index = this.#tools++;
          this.#toolIndex.set(payload.index, index);
          const initial = block.input !== undefined && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : '';
          return writer.toolCallStart(index, block.id, block.name, initial);
        }
        if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') return writer.text(block.text);
        return '';
      }
      case 'content_block_delta': {
        const delta = payload.delta ?? {};
        if (this.#blocks !== null) filled(this.#blocks.get(payload.index), delta);
        if (delta.type === 'text_delta') return writer.text(delta.text ?? '');
        if (delta.type === 'input_json_delta') {
          const index = this.#toolIndex.get(payload.index);
          return index === undefined ? '' : writer.toolCallArguments(index, delta.partial_json ?? '');
        }
        if (delta.type === 'thinking_delta' && !this.#options.strict) return writer.reasoning(delta.thinking ?? '');
        return '';
      }
      case 'message_delta': {
        this.#usage.add(payload.usage);
        const reason = payload.delta?.stop_reason;
        return reason === undefined || reason === null ? '' : writer.finish(finishReasonOf(reason));
      }
      case 'message_stop':
        this.#stopped = true;
        if (this.#blocks !== null) {
          const blocks = this.#blocks;
          handOver(this.#options.keepThinking, () => keptOf(inIndexOrder(blocks), collectMessagesBlock));
        }
        return writer.usage(chatUsageOf(this.#usage.usage, this.#options.strict));
      case 'error': {
        this.#failed = true;
        const error = payload.error ?? {};
        const type = typeof error.type === 'string' ? error.type : 'api_error';
        return writer.error(this.#options.provider, statusOfErrorType(type), typeof error.message === 'string' ? error.message : UNSAID_ERROR, type);
      }
      default:
        // ping, content_block_stop and event types added later carry nothing a chat chunk needs.
        return '';
    }
  }
}

/** A thinking block's text and signature as its deltas come (the rest of a block is in its start). */
function filled(block: Record<string, unknown> | undefined, delta: Record<string, unknown>): void {
  if (block === undefined) return;
  if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') block.thinking = (typeof block.thinking === 'string' ? block.thinking : '') + delta.thinking;
  else if (delta.type === 'signature_delta' && typeof delta.signature === 'string') block.signature = (typeof block.signature === 'string' ? block.signature : '') + delta.signature;
}

/**
 * A messages stream that opens with an `error` event (`overloaded_error` under load) is the error
 * answer its type stands for (529, 429, …), its data the API's own error body.
 */
export const messagesStreamOpening = sseOpening(messagesErrorEvent);
