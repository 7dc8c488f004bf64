// The output items of an emulated response, built from a chat answer's parts as they come: a
// stream's deltas one at a time, telling the Responses events each makes as it goes (a streamed
// response), or a whole completion's at once (a plain one). One builder for both, so a streamed
// response and a plain one of the same answer have the same items.
//
// Items follow the answer's order: reasoning (when its summary was asked for), the message (its
// text, and a refusal as a part of its own), the function calls. An item closes when a part of
// another kind begins, or at the end; the function calls of one turn stay open together until then,
// since a provider may send their argument pieces interleaved.
import type { ChatMessage } from './conversation.ts';
import { type ItemIds, randomItemIds } from './item-ids.ts';

type Item = Record<string, unknown>;

/** Told each event the output makes: its type and members; `delta` for the events that carry a piece of text. */
export type EventSink = (type: string, fields: Record<string, unknown>, delta?: boolean) => void;

/** A chat answer's usage, as the provider reported it. */
export interface ChatUsageIn {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

export interface ResponseUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens_details: { reasoning_tokens: number };
}

export interface EmulatedOutput {
  output: Item[];
  outputText: string;
  /** The assistant turn as a chat message, for the stored conversation. */
  assistant: ChatMessage;
  status: 'completed' | 'incomplete';
  incompleteReason: string | null;
  usage: ResponseUsage;
  /** The usage as the chat answer reported it (null: none), for pricing. */
  usageIn: ChatUsageIn | null;
}

interface OpenText {
  kind: 'reasoning' | 'message';
  item: Item;
  index: number;
  /** The open part: its index and type (`output_text`, `refusal`, `summary_text`) and its text so far. */
  part: { index: number; type: string; text: string } | null;
  parts: Item[];
}

interface OpenCall {
  item: Item;
  index: number;
}

export class OutputBuilder {
  readonly #summarize: boolean;
  readonly #emit: EventSink;
  readonly #ids: ItemIds;
  readonly #output: Item[] = [];
  #open: OpenText | null = null;
  /** The function calls being streamed, by the chat answer's tool call index. */
  readonly #calls = new Map<number, OpenCall>();
  #text = '';
  #refusal = '';
  #finish: unknown = null;
  #usage: ChatUsageIn | null = null;

  /**
   * `summarize`: the reasoning's text becomes a reasoning item (else it is left out); `emit`: told
   * each event (none for a plain response); `ids`: the items' IDs (a stored response's: item-ids.ts).
   */
  constructor(summarize: boolean, emit: EventSink | null = null, ids: ItemIds = randomItemIds) {
    this.#summarize = summarize;
    this.#emit = emit ?? (() => {});
    this.#ids = ids;
  }

  reasoning(text: string): void {
    if (!this.#summarize || text === '') return;
    const open = this.#openText('reasoning', () => ({ id: this.#ids('rs'), type: 'reasoning', summary: [] }));
    this.#append(open, 'summary_text', text);
  }

  text(text: string): void {
    if (text === '') return;
    this.#text += text;
    this.#append(this.#openMessage(), 'output_text', text);
  }

  refusal(text: string): void {
    if (text === '') return;
    this.#refusal += text;
    this.#append(this.#openMessage(), 'refusal', text);
  }

  /** A piece of the tool call at `index`: its id and name come with its first piece, its arguments in pieces. */
  toolCall(index: number, id: unknown, name: unknown, args: unknown): void {
    this.#closeText();
    let call = this.#calls.get(index);
    if (call === undefined) {
      const item: Item = { id: this.#ids('fc'), type: 'function_call', call_id: typeof id === 'string' ? id : '', name: typeof name === 'string' ? name : '', arguments: '', status: 'in_progress' };
      call = { item, index: this.#output.length };
      this.#calls.set(index, call);
      this.#output.push(item);
      this.#emit('response.output_item.added', { output_index: call.index, item: { ...item } });
    } else {
      if (call.item.call_id === '' && typeof id === 'string') call.item.call_id = id;
      if (call.item.name === '' && typeof name === 'string') call.item.name = name;
    }
    if (typeof args === 'string' && args !== '') {
      call.item.arguments += args;
      this.#emit('response.function_call_arguments.delta', { item_id: call.item.id, output_index: call.index, delta: args }, true);
    }
  }

  finish(reason: unknown): void {
    if (reason !== null && reason !== undefined) this.#finish = reason;
  }

  usage(usage: ChatUsageIn): void {
    this.#usage = usage;
  }

  get hasUsage(): boolean {
    return this.#usage !== null;
  }

  /** Closes what is open and gives the output. An answer with neither text nor calls is one empty message, as the API answers it. */
  end(): EmulatedOutput {
    this.#closeText();
    this.#closeCalls();
    if (!this.#output.some((item) => item.type === 'message' || item.type === 'function_call')) {
      // Its text part, empty, as the API's empty answer has it.
      this.#openPart(this.#openMessage(), 'output_text');
      this.#closeText();
    }
    const calls = this.#output.filter((item) => item.type === 'function_call');
    const refusal = this.#refusal === '' ? null : this.#refusal;
    const assistant: ChatMessage = { role: 'assistant', content: refusal ?? (this.#text === '' && calls.length > 0 ? null : this.#text) };
    if (calls.length > 0) assistant.tool_calls = calls.map((call) => ({ id: call.call_id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
    const incompleteReason = this.#finish === 'length' ? 'max_output_tokens' : this.#finish === 'content_filter' ? 'content_filter' : null;
    return { output: this.#output, outputText: this.#text, assistant, status: incompleteReason === null ? 'completed' : 'incomplete', incompleteReason, usage: responseUsage(this.#usage), usageIn: this.#usage };
  }

  #openMessage(): OpenText {
    return this.#openText('message', () => ({ id: this.#ids('msg'), type: 'message', role: 'assistant', status: 'in_progress', content: [] }));
  }

  #openText(kind: OpenText['kind'], make: () => Item): OpenText {
    if (this.#open?.kind === kind) return this.#open;
    this.#closeText();
    this.#closeCalls();
    const item = make();
    this.#open = { kind, item, index: this.#output.length, part: null, parts: [] };
    this.#output.push(item);
    this.#emit('response.output_item.added', { output_index: this.#open.index, item: { ...item } });
    return this.#open;
  }

  #append(open: OpenText, type: string, text: string): void {
    if (open.part?.type !== type) this.#openPart(open, type);
    open.part!.text += text;
    const event = type === 'summary_text' ? 'response.reasoning_summary_text.delta' : type === 'refusal' ? 'response.refusal.delta' : 'response.output_text.delta';
    this.#emit(event, { ...this.#where(open), delta: text, ...(type === 'output_text' ? { logprobs: [] } : {}) }, type !== 'refusal');
  }

  #openPart(open: OpenText, type: string): void {
    this.#closePart(open);
    open.part = { index: open.parts.length, type, text: '' };
    this.#emit(`response.${open.kind === 'reasoning' ? 'reasoning_summary_part' : 'content_part'}.added`, { ...this.#where(open), part: partOf(type, '') });
  }

  /** Where the open part is, as the events name it. */
  #where(open: OpenText): Record<string, unknown> {
    return { item_id: open.item.id, output_index: open.index, [open.kind === 'reasoning' ? 'summary_index' : 'content_index']: open.part?.index ?? open.parts.length };
  }

  #closePart(open: OpenText): void {
    const part = open.part;
    if (part === null) return;
    const where = this.#where(open);
    const done = partOf(part.type, part.text);
    if (part.type === 'summary_text') this.#emit('response.reasoning_summary_text.done', { ...where, text: part.text });
    else if (part.type === 'refusal') this.#emit('response.refusal.done', { ...where, refusal: part.text });
    else this.#emit('response.output_text.done', { ...where, text: part.text, logprobs: [] });
    this.#emit(`response.${open.kind === 'reasoning' ? 'reasoning_summary_part' : 'content_part'}.done`, { ...where, part: done });
    open.parts.push(done);
    open.part = null;
  }

  #closeText(): void {
    const open = this.#open;
    if (open === null) return;
    this.#closePart(open);
    this.#open = null;
    if (open.kind === 'reasoning') open.item.summary = open.parts;
    else {
      open.item.content = open.parts;
      open.item.status = 'completed';
    }
    this.#emit('response.output_item.done', { output_index: open.index, item: open.item });
  }

  #closeCalls(): void {
    for (const call of this.#calls.values()) {
      call.item.status = 'completed';
      this.#emit('response.function_call_arguments.done', { item_id: call.item.id, output_index: call.index, arguments: call.item.arguments });
      this.#emit('response.output_item.done', { output_index: call.index, item: call.item });
    }
    this.#calls.clear();
  }
}

function partOf(type: string, text: string): Item {
  if (type === 'summary_text') return { type, text };
  if (type === 'refusal') return { type, refusal: text };
  return { type, text, annotations: [] };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** A chat answer's usage in the Responses API's terms; zeros when the provider reported none. */
export function responseUsage(usage: ChatUsageIn | null): ResponseUsage {
  const input = count(usage?.prompt_tokens);
  const output = count(usage?.completion_tokens);
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: typeof usage?.total_tokens === 'number' ? count(usage.total_tokens) : input + output,
    input_tokens_details: { cached_tokens: count(usage?.prompt_tokens_details?.cached_tokens) },
    output_tokens_details: { reasoning_tokens: count(usage?.completion_tokens_details?.reasoning_tokens) },
  };
}

/** The reasoning text a chat message or delta carries: `reasoning_content` (the translations'), else `reasoning` (some servers'). */
export function reasoningOf(message: { reasoning_content?: unknown; reasoning?: unknown } | null | undefined): string {
  const text = typeof message?.reasoning_content === 'string' ? message.reasoning_content : message?.reasoning;
  return typeof text === 'string' ? text : '';
}

export interface ChatCompletion {
  model?: unknown;
  choices?: Array<{ message?: { content?: unknown; refusal?: unknown; tool_calls?: unknown; reasoning_content?: unknown; reasoning?: unknown }; finish_reason?: unknown }>;
  usage?: ChatUsageIn | null;
}

export function isChatCompletion(value: unknown): value is ChatCompletion {
  const choices = (value as ChatCompletion | null)?.choices;
  return Array.isArray(choices) && choices.length > 0 && typeof choices[0]?.message === 'object' && choices[0].message !== null;
}

/** A whole chat completion's first choice, given to `builder` as one piece of each part. */
export function buildFromChat(builder: OutputBuilder, chat: ChatCompletion): EmulatedOutput {
  const choice = chat.choices![0]!;
  const message = choice.message ?? {};
  builder.reasoning(reasoningOf(message));
  if (typeof message.content === 'string') builder.text(message.content);
  if (typeof message.refusal === 'string') builder.refusal(message.refusal);
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } } | null>) : [];
  calls.forEach((call, index) => builder.toolCall(index, call?.id, call?.function?.name, call?.function?.arguments));
  builder.finish(choice.finish_reason);
  if (chat.usage !== undefined && chat.usage !== null) builder.usage(chat.usage);
  return builder.end();
}

/** A chat completion as Responses output items (a plain response). `summarize`: the reasoning's text as a reasoning item first. */
export function outputFromChat(chat: ChatCompletion, summarize = false): EmulatedOutput {
  return buildFromChat(new OutputBuilder(summarize), chat);
}
