// A chat completion's stream read as it comes, for a streamed emulated response: each chunk's deltas
// go to the output builder, which tells the Responses events they make (output-builder.ts). The
// stream ends well with `[DONE]`; an error event (the provider's, or the gateway's broken-stream
// frame), or an end without `[DONE]`, makes the response fail.
import { jsonObjectOf } from '../../providers/shared/errors.ts';
import { SseParser } from '../../providers/shared/sse.ts';
import { type ChatUsageIn, type OutputBuilder, reasoningOf } from './output-builder.ts';

export interface StreamFailure {
  code: string;
  message: string;
}

interface ChunkDelta {
  content?: unknown;
  refusal?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
  tool_calls?: unknown;
}

export class ChatStreamReader {
  readonly #parser = new SseParser();
  readonly #builder: OutputBuilder;
  /** Told after each chunk's events were made, for the frames they filled. */
  readonly #take: () => string;
  #done = false;
  #failure: StreamFailure | null = null;
  /** The model the provider says answered (null until a chunk names it). */
  model: string | null = null;

  constructor(builder: OutputBuilder, take: () => string) {
    this.#builder = builder;
    this.#take = take;
  }

  get done(): boolean {
    return this.#done;
  }

  get failure(): StreamFailure | null {
    return this.#failure;
  }

  /** Some of the chat stream's bytes; the frames of the Responses events they complete. */
  push(chunk: Buffer): string {
    if (this.#done || this.#failure !== null) return '';
    for (const event of this.#parser.push(chunk)) {
      this.#event(event.event, event.data);
      if (this.#done || this.#failure !== null) break;
    }
    return this.#take();
  }

  /** The chat stream's bytes ended (or broke off: `broken` says how, and what was left unread is not read); the failure, if it did not finish. */
  end(broken: string | null = null): StreamFailure | null {
    if (!this.#done && this.#failure === null && broken === null) {
      for (const event of this.#parser.end()) this.#event(event.event, event.data);
    }
    if (!this.#done && this.#failure === null) this.#failure = { code: 'upstream_stream_broken', message: `The provider stream broke: ${broken ?? 'it ended before [DONE]'}.` };
    return this.#failure;
  }

  #event(name: string, data: string): void {
    if (data === '[DONE]') {
      this.#done = true;
      return;
    }
    const chunk = jsonObjectOf(Buffer.from(data));
    if (name === 'error' || (chunk !== null && chunk.error !== undefined && chunk.error !== null)) {
      const error = (chunk?.error ?? {}) as { message?: unknown; code?: unknown };
      this.#failure = {
        code: typeof error.code === 'string' && error.code !== '' ? error.code : 'server_error',
        message: typeof error.message === 'string' && error.message !== '' ? error.message : 'The provider reported an error.',
      };
      return;
    }
    if (chunk === null) return;
    if (typeof chunk.model === 'string' && chunk.model !== '') this.model = chunk.model;
    if (chunk.usage !== undefined && chunk.usage !== null && typeof chunk.usage === 'object') this.#builder.usage(chunk.usage as ChatUsageIn);
    const choice = (Array.isArray(chunk.choices) ? chunk.choices[0] : undefined) as { delta?: ChunkDelta | null; finish_reason?: unknown } | undefined;
    const delta = choice?.delta;
    if (delta !== undefined && delta !== null) {
      this.#builder.reasoning(reasoningOf(delta));
      if (typeof delta.content === 'string') this.#builder.text(delta.content);
      if (typeof delta.refusal === 'string') this.#builder.refusal(delta.refusal);
      if (Array.isArray(delta.tool_calls)) {
        for (const call of delta.tool_calls as Array<{ index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } | null } | null>) {
          this.#builder.toolCall(typeof call?.index === 'number' ? call.index : 0, call?.id, call?.function?.name, call?.function?.arguments);
        }
      }
    }
    this.#builder.finish(choice?.finish_reason);
  }
}
