// The messages API's answers → chat completions: text and tool_use blocks become the message and
// its tool calls, stop reasons and usage are renamed; errors keep their status and name the provider.
import type { FinishReason } from '../shared/chat-chunks.ts';
import { chatCompletion, type ChatCompletion, type ChatToolCall, usageOf } from '../shared/chat.ts';
import type { ChatUsage } from '../shared/chat-chunks.ts';
import { bodyExcerpt, jsonObjectOf, mappedError, type MappedError, stringOr } from '../shared/errors.ts';
import { unixNow } from '../shared/chat-chunks.ts';

export interface MessagesUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  /** cache_creation_input_tokens by the TTL they were written for. */
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
}

const USAGE_COUNTS = ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const;

/**
 * A stream's usage as its events report it: message_start's, then each message_delta's counts over
 * it (the output so far; in newer API versions the input and cache counts again). Read by the stream's
 * translation and by the request log of a stream passed on as it is.
 */
export class MessagesUsageCount {
  readonly usage: MessagesUsage = {};

  add(usage: unknown): void {
    if (usage === null || typeof usage !== 'object') return;
    for (const key of USAGE_COUNTS) {
      const value = (usage as Record<string, unknown>)[key];
      if (typeof value === 'number') this.usage[key] = value;
    }
    const creation = (usage as MessagesUsage).cache_creation;
    if (creation !== null && typeof creation === 'object') this.usage.cache_creation = creation;
  }
}

export interface MessagesResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ({ type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown } | { type: 'thinking'; thinking: string } | { type: string })[];
  stop_reason: string | null;
  stop_sequence?: string | null;
  usage: MessagesUsage;
}

export function finishReasonOf(stopReason: string | null | undefined): FinishReason {
  switch (stopReason) {
    case 'max_tokens': return 'length';
    case 'tool_use': return 'tool_calls';
    case 'refusal': return 'content_filter';
    default: return 'stop';
  }
}

/**
 * The vendor's usage of the messages API's: its input_tokens count only what was neither read from
 * nor written to the prompt cache, while the vendor's prompt tokens count every input token and
 * name the ones read from the cache (cached_tokens, priced lower). Cache writes, billed above the
 * input price, are named beside them (cache_creation_tokens, and cache_creation_1h_tokens for the
 * hour-long ones) unless `strict` keeps the answer to the vendor's shape.
 */
export function chatUsageOf(usage: MessagesUsage | undefined, strict: boolean): ChatUsage {
  const read = usage?.cache_read_input_tokens;
  const write = usage?.cache_creation_input_tokens ?? 0;
  const prompt = (usage?.input_tokens ?? 0) + write + (read ?? 0);
  const writes = strict ? undefined : { tokens: write, oneHourTokens: usage?.cache_creation?.ephemeral_1h_input_tokens ?? 0 };
  return usageOf(prompt, usage?.output_tokens ?? 0, typeof read === 'number' ? read : undefined, writes);
}

export function fromMessagesResponse(response: MessagesResponse, strict: boolean): ChatCompletion {
  let text = '';
  let reasoning: string | null = null;
  const toolCalls: ChatToolCall[] = [];
  for (const block of response.content ?? []) {
    if (block.type === 'text') text += (block as { text: string }).text;
    else if (block.type === 'tool_use') {
      const use = block as { id: string; name: string; input: unknown };
      toolCalls.push({ id: use.id, type: 'function', function: { name: use.name, arguments: JSON.stringify(use.input ?? {}) } });
    } else if (block.type === 'thinking' && !strict) reasoning = (reasoning ?? '') + (block as { thinking: string }).thinking;
  }
  return chatCompletion({
    id: response.id,
    model: response.model,
    created: unixNow(),
    content: text === '' && toolCalls.length > 0 ? null : text,
    toolCalls,
    reasoning,
    finishReason: finishReasonOf(response.stop_reason),
    usage: chatUsageOf(response.usage, strict),
  });
}

/** `{type: "error", error: {type, message}}` → the gateway error body. */
export function fromMessagesError(provider: string, status: number, body: Buffer): MappedError {
  const json = jsonObjectOf(body);
  const inner = json?.error as { type?: unknown; message?: unknown } | undefined;
  return mappedError(provider, status, stringOr(inner?.message, bodyExcerpt(body, status))!, stringOr(inner?.type, null));
}

