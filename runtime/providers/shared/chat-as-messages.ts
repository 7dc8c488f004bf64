// A chat completion's answer as the messages API's, for its create call answered as a chat
// (messages-as-chat.ts), over whatever the provider's own answer became as a chat (its mapping): the
// completion as a message (text, tool_use blocks with their parsed input, the stop reason, the
// counts), a stream's chunks as the messages API's
// server-sent events (message_start, a content block per text run and per tool call with its
// deltas, message_delta with the stop reason and the counts, message_stop), and errors in the
// messages API's shape. Reasoning text the model gives beside its answer is left out: a thinking
// block would need Claude's signature, which no other model makes.
import { GatewayError } from '../../core/errors.ts';
import { jsonObjectOf } from './errors.ts';
import { messagesError } from './messages-call.ts';
import { SseParser } from './sse.ts';
import type { ResponseMapping, StreamMapper } from '../types.ts';

type Json = Record<string, unknown>;

interface ChatUsageIn {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
}

/** The messages API's counts of a chat's usage: the prompt's cached tokens apart, as Claude counts its cache reads. */
function messagesCountsOf(usage: ChatUsageIn | null | undefined): Json {
  const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0);
  const prompt = count(usage?.prompt_tokens);
  const cached = Math.min(count(usage?.prompt_tokens_details?.cached_tokens), prompt);
  return { input_tokens: prompt - cached, cache_creation_input_tokens: 0, cache_read_input_tokens: cached, output_tokens: count(usage?.completion_tokens) };
}

/** A chat finish reason as the messages API's stop reason. */
function stopReasonOf(finish: unknown): string {
  switch (finish) {
    case 'length': return 'max_tokens';
    case 'tool_calls': case 'function_call': return 'tool_use';
    case 'content_filter': return 'refusal';
    default: return 'end_turn';
  }
}

function messageId(chatId: unknown): string {
  return typeof chatId === 'string' && chatId !== '' ? chatId : `msg_${Date.now().toString(36)}`;
}

/** A chat completion as the messages API's message; tool call arguments that are no JSON object are the provider's broken answer. */
export function messageOfChat(completion: unknown, provider: string): Json {
  const answer = (completion ?? {}) as { id?: unknown; model?: unknown; choices?: unknown; usage?: ChatUsageIn };
  const choice = (Array.isArray(answer.choices) ? answer.choices[0] : undefined) as { message?: { content?: unknown; refusal?: unknown; tool_calls?: unknown }; finish_reason?: unknown } | undefined;
  const said = choice?.message;
  const content: Json[] = [];
  const text = typeof said?.content === 'string' ? said.content : typeof said?.refusal === 'string' ? said.refusal : '';
  if (text !== '') content.push({ type: 'text', text });
  if (Array.isArray(said?.tool_calls)) {
    for (const call of said.tool_calls as Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } }>) {
      content.push({ type: 'tool_use', id: call?.id, name: call?.function?.name, input: toolInput(call?.function?.arguments, provider) });
    }
  }
  const stop = typeof said?.refusal === 'string' && said.refusal !== '' && typeof said.content !== 'string' ? 'refusal' : stopReasonOf(choice?.finish_reason);
  return { id: messageId(answer.id), type: 'message', role: 'assistant', model: answer.model, content, stop_reason: stop, stop_sequence: null, usage: messagesCountsOf(answer.usage) };
}

function toolInput(args: unknown, provider: string): unknown {
  if (args === undefined || args === null || args === '') return {};
  const input = typeof args === 'string' ? jsonObjectOf(Buffer.from(args)) : null;
  if (input === null) throw new GatewayError('provider_invalid_response', "The provider's tool call arguments are not a JSON object, which the messages API's tool_use input must be.", null, { provider });
  return input;
}

/**
 * How the answer comes back as the messages API's, over `chat`, the mapping that makes the provider's
 * answer a chat's (null: it is one already): the message, the stream's events, errors in its shape.
 */
export function messagesMappingOver(chat: ResponseMapping | null, provider: string, streamed: boolean): ResponseMapping {
  return {
    provider,
    ...(chat?.observe === undefined ? {} : { observe: chat.observe }),
    ...(streamed
      ? { stream: () => new ChatAsMessagesStream(chat?.stream?.() ?? null) }
      : { json: (answer) => messageOfChat(chat?.json === undefined ? answer : chat.json(answer), provider) }),
    error: messagesErrorOver(chat?.error),
  };
}

/** An error answer in the messages API's shape, its message the one `chatError` (the mapping that makes it the vendor's error) finds; the body's own without one. */
export function messagesErrorOver(chatError: ResponseMapping['error'] | undefined): NonNullable<ResponseMapping['error']> {
  return (status, body, headers) => {
    const mapped = chatError === undefined ? jsonObjectOf(body) : (chatError(status, body, headers) as Json | null);
    const error = mapped?.error as { message?: unknown } | undefined;
    return messagesError(status, typeof error?.message === 'string' && error.message !== '' ? error.message : `The provider answered ${status}.`);
  };
}

function sse(type: string, data: Json): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/**
 * A chat stream's chunks → the messages API's events. The first chunk opens the message; text opens
 * a text block, each tool call (by its index) a tool_use block whose argument pieces are
 * input_json_delta; a block closes when another opens or the stream finishes; `[DONE]` ends the
 * message with message_delta (the stop reason, and the counts of the usage chunk: they are known only
 * at the end, so message_start has none; a provider that reports none leaves them out, and the
 * request log estimates them) and message_stop. An error event, or a stream that ends without
 * `[DONE]`, ends it with the API's `error` event.
 */
export class ChatAsMessagesStream implements StreamMapper {
  readonly #parser = new SseParser();
  /** What makes the provider's stream a chat's (a translation's, or the one that keeps a usage chunk it asked for); null: it is one. */
  readonly #chat: StreamMapper | null;
  #started = false;
  #done = false;
  #failed = false;
  /** The open block: its index and what it holds (text, or the tool call of that chat index). */
  #open: { index: number; tool: number | null } | null = null;
  #blocks = 0;
  #stop = 'end_turn';
  #usage: ChatUsageIn | null = null;

  constructor(chat: StreamMapper | null = null) {
    this.#chat = chat;
  }

  push(chunk: Buffer): string {
    if (this.#done || this.#failed) return '';
    return this.#events(this.#chat === null ? chunk : this.#chat.push(chunk));
  }

  end(): string {
    if (this.#done || this.#failed) return '';
    const out = this.#chat === null ? '' : this.#events(this.#chat.end());
    if (this.#done || this.#failed) return out;
    return out + this.#fail(500, 'The provider stream broke: it ended before [DONE].');
  }

  /** The chat stream's events: its usage as the chat mapping reported it where it kept the chunk from the stream (a translation's, or one asked for). */
  #events(text: Buffer | string): string {
    if (text.length === 0) return '';
    let out = '';
    for (const event of this.#parser.push(typeof text === 'string' ? Buffer.from(text) : text)) {
      if (event.data === '[DONE]' && this.#usage === null) this.#usage = (this.#chat?.usage() ?? null) as ChatUsageIn | null;
      out += this.#event(event.event, event.data);
      if (this.#done || this.#failed) break;
    }
    return out;
  }

  /** The log reads the counts from message_delta (the messages dialect). */
  usage(): null {
    return null;
  }

  #event(name: string, data: string): string {
    if (data === '[DONE]') return this.#finish();
    const chunk = jsonObjectOf(Buffer.from(data));
    if (name === 'error' || (chunk !== null && chunk.error !== undefined && chunk.error !== null)) {
      const error = (chunk?.error ?? {}) as { message?: unknown; status?: unknown };
      return this.#fail(typeof error.status === 'number' ? error.status : 500, typeof error.message === 'string' ? error.message : 'The provider reported an error.');
    }
    if (chunk === null) return '';
    let out = this.#start(chunk);
    if (chunk.usage !== undefined && chunk.usage !== null) this.#usage = chunk.usage as ChatUsageIn;
    const choice = (Array.isArray(chunk.choices) ? chunk.choices[0] : undefined) as { delta?: { content?: unknown; refusal?: unknown; tool_calls?: unknown }; finish_reason?: unknown } | undefined;
    const delta = choice?.delta;
    const text = typeof delta?.content === 'string' ? delta.content : typeof delta?.refusal === 'string' ? delta.refusal : '';
    if (text !== '') {
      if (this.#open === null || this.#open.tool !== null) out += this.#openBlock(null, { type: 'text', text: '' });
      out += sse('content_block_delta', { index: this.#open!.index, delta: { type: 'text_delta', text } });
    }
    if (Array.isArray(delta?.tool_calls)) {
      for (const call of delta.tool_calls as Array<{ index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } }>) {
        const tool = typeof call?.index === 'number' ? call.index : 0;
        if (this.#open === null || this.#open.tool !== tool) out += this.#openBlock(tool, { type: 'tool_use', id: call?.id, name: call?.function?.name, input: {} });
        const piece = call?.function?.arguments;
        if (typeof piece === 'string' && piece !== '') out += sse('content_block_delta', { index: this.#open!.index, delta: { type: 'input_json_delta', partial_json: piece } });
      }
    }
    if (typeof choice?.finish_reason === 'string') {
      this.#stop = stopReasonOf(choice.finish_reason);
      out += this.#closeBlock();
    }
    return out;
  }

  #start(chunk: Json): string {
    if (this.#started) return '';
    this.#started = true;
    // The counts are known at the end only: message_delta has them (the SDKs take its input count too).
    return sse('message_start', { message: { id: messageId(chunk.id), type: 'message', role: 'assistant', model: chunk.model, content: [], stop_reason: null, stop_sequence: null, usage: { output_tokens: 0 } } });
  }

  #openBlock(tool: number | null, block: Json): string {
    const out = this.#closeBlock();
    this.#open = { index: this.#blocks++, tool };
    return out + sse('content_block_start', { index: this.#open.index, content_block: block });
  }

  #closeBlock(): string {
    if (this.#open === null) return '';
    const index = this.#open.index;
    this.#open = null;
    return sse('content_block_stop', { index });
  }

  #finish(): string {
    this.#done = true;
    const out = this.#start({}) + this.#closeBlock();
    // Without the provider's usage the counts are unknown: the input's left out, the output's 0 (the
    // API requires it here), and the request log estimates both.
    return out + sse('message_delta', { delta: { stop_reason: this.#stop, stop_sequence: null }, usage: this.#usage === null ? { output_tokens: 0 } : messagesCountsOf(this.#usage) }) + sse('message_stop', {});
  }

  #fail(status: number, message: string): string {
    this.#failed = true;
    return sse('error', messagesError(status >= 400 && status < 600 ? status : 500, message));
  }
}
