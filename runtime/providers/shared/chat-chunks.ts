// Writes vendor-shaped `chat.completion.chunk` SSE frames for a stream decoded from another
// provider's events. Tool-call and usage frames follow the vendor's own stream exactly: the first
// chunk carries the role, tool calls start with id and name, usage comes last with no choices.
import { mappedError } from './errors.ts';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /**
   * Of the prompt tokens, those read from the provider's prompt cache (when the provider says), and,
   * beyond the vendor's shape (left out under strict vendor compliance), those written to it, which
   * the messages API and cloud C bill above the input price: all of them, and of those the ones
   * written for an hour (priced higher again).
   */
  prompt_tokens_details?: { cached_tokens: number; cache_creation_tokens?: number; cache_creation_1h_tokens?: number };
  /** Of the completion tokens, those the model spent reasoning (when the provider says). */
  completion_tokens_details?: { reasoning_tokens: number };
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ChunkWriterOptions {
  id: string;
  model: string;
  /** Unix seconds. */
  created: number;
  /** `stream_options.include_usage`: a final usage chunk, and `usage: null` on the others. */
  includeUsage: boolean;
}

export const DONE_FRAME = 'data: [DONE]\n\n';

export class ChatChunkWriter {
  readonly #options: ChunkWriterOptions;
  #id: string;
  #model: string;
  #started = false;

  constructor(options: ChunkWriterOptions) {
    this.#options = options;
    this.#id = options.id;
    this.#model = options.model;
  }

  /** The provider's own id for the answer, once it said it. */
  set id(id: string) {
    if (id !== '') this.#id = id;
  }

  /** The provider told us which model answered (it may differ from the one asked for). */
  set model(model: string) {
    if (model !== '') this.#model = model;
  }

  get started(): boolean {
    return this.#started;
  }

  /** The first chunk: the assistant role (idempotent). */
  start(): string {
    if (this.#started) return '';
    this.#started = true;
    return this.#frame({ role: 'assistant', content: '' }, null);
  }

  text(text: string): string {
    if (text === '') return this.start();
    return this.start() + this.#frame({ content: text }, null);
  }

  /** Reasoning text outside the vendor schema (only written when strict compliance is off). */
  reasoning(text: string): string {
    return this.start() + this.#frame({ reasoning_content: text }, null);
  }

  toolCallStart(index: number, id: string, name: string, args = ''): string {
    return this.start() + this.#frame({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: args } }] }, null);
  }

  toolCallArguments(index: number, args: string): string {
    if (args === '') return '';
    return this.start() + this.#frame({ tool_calls: [{ index, function: { arguments: args } }] }, null);
  }

  finish(reason: FinishReason): string {
    return this.start() + this.#frame({}, reason);
  }

  /** The usage chunk (only when the client asked for it). */
  usage(usage: ChatUsage): string {
    if (!this.#options.includeUsage) return '';
    return `data: ${JSON.stringify({ ...this.#base(), choices: [], usage })}\n\n`;
  }

  /** A provider error inside the stream: an `event: error` frame (and no [DONE] after it). */
  error(provider: string, status: number, message: string, code: string | null): string {
    return `event: error\ndata: ${JSON.stringify(mappedError(provider, status, message, code))}\n\n`;
  }

  #base(): Record<string, unknown> {
    return { id: this.#id, object: 'chat.completion.chunk', created: this.#options.created, model: this.#model };
  }

  #frame(delta: Record<string, unknown>, finishReason: FinishReason | null): string {
    const chunk: Record<string, unknown> = { ...this.#base(), choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] };
    if (this.#options.includeUsage) chunk.usage = null;
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }
}

/** A broken provider stream, told to an SSE client in its own terms (as send-outcome does). */
export function brokenStreamFrame(provider: string, detail: string): string {
  const body = { error: { message: `The provider stream broke: ${detail}`, type: 'provider_error', param: null, code: 'upstream_stream_broken', provider } };
  return `event: error\ndata: ${JSON.stringify(body)}\n\n`;
}

export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}
