// Fitting a conversation into the model's context window (SPEC §2.7 `truncation`, §7 rule 1). The
// input counts with the model's answer: input tokens plus `max_output_tokens` must fit the window.
// `disabled` refuses what does not fit (400); `auto` drops whole items from the middle of the
// conversation (keeping the first and the latest) until it fits. Tokens are estimated (about four
// bytes of UTF-8 each, plus a few per message: runtime/core/token-estimate.ts), so the check is
// conservative rather than exact.
import { GatewayError } from '../../core/errors.ts';
import { estimateMessageTokens as messageTokens } from '../../core/token-estimate.ts';
import type { ChatMessage } from './conversation.ts';

export interface FitOptions {
  /** null: the model is not in the catalog, so nothing is checked. */
  contextWindow: number | null;
  /** Tokens the request spends outside the conversation: instructions, tool definitions, the answer. */
  reserved: number;
  truncation: 'auto' | 'disabled';
}

/**
 * Units that must stay together: an assistant turn that calls tools and the tool results answering
 * it (chat completions refuse a tool result without its call, and a call without its results).
 */
export function units(messages: readonly ChatMessage[]): ChatMessage[][] {
  const grouped: ChatMessage[][] = [];
  for (const message of messages) {
    const last = grouped[grouped.length - 1];
    if (message.role === 'tool' && last !== undefined && (last[0].role === 'tool' || Array.isArray(last[0].tool_calls))) last.push(message);
    else grouped.push([message]);
  }
  return grouped;
}

/** The conversation that is sent: all of it, or (auto) with middle units dropped; 400 when it cannot fit. */
export function fitConversation(messages: readonly ChatMessage[], options: FitOptions): ChatMessage[] {
  if (options.contextWindow === null) return [...messages];
  const window = options.contextWindow;
  const groups = units(messages);
  const cost = groups.map((group) => group.reduce((sum, m) => sum + messageTokens(m), 0));
  let total = options.reserved + cost.reduce((a, b) => a + b, 0);
  if (total <= window) return [...messages];
  if (options.truncation === 'disabled') {
    throw new GatewayError('context_window_exceeded', `The input (about ${total - options.reserved} tokens) plus the reserved ${options.reserved} does not fit the model's context window of ${window} tokens; set truncation to "auto" to drop middle items.`, '/input', { context_window: window, estimated_tokens: total });
  }
  const kept = groups.map((_, i) => i);
  // Drop the middle unit until it fits, never the first or the latest.
  while (total > window && kept.length > 2) {
    const [dropped] = kept.splice(Math.floor(kept.length / 2), 1);
    total -= cost[dropped];
  }
  if (total > window) {
    throw new GatewayError('context_window_exceeded', `Even with only the first and the latest items, the input (about ${total - options.reserved} tokens) does not fit the model's context window of ${window} tokens.`, '/input', { context_window: window, estimated_tokens: total });
  }
  return kept.flatMap((i) => groups[i]);
}

/**
 * The most a stored conversation keeps, in bytes of JSON: more than any model reads (two million
 * tokens are about 8 MB of text). Each turn of a chain stores the whole conversation and the next
 * turn loads it, so without a bound a chain with `truncation: "auto"` (or a model the catalog does
 * not know, whose window is not checked) grew every row, and the work of every later turn, forever.
 */
export const MAX_STORED_CONVERSATION_BYTES = 8 * 1024 * 1024;

/**
 * The conversation a stored response keeps: all of it, or with middle units dropped (never the first
 * or the latest, as `auto` truncation drops them) until its JSON is at most `maxBytes`.
 */
export function storedConversation(messages: readonly ChatMessage[], maxBytes = MAX_STORED_CONVERSATION_BYTES): ChatMessage[] {
  const groups = units(messages);
  const size = groups.map((group) => Buffer.byteLength(JSON.stringify(group)));
  let total = size.reduce((a, b) => a + b, 0);
  if (total <= maxBytes) return [...messages];
  const kept = groups.map((_, i) => i);
  while (total > maxBytes && kept.length > 2) {
    const [dropped] = kept.splice(Math.floor(kept.length / 2), 1);
    total -= size[dropped];
  }
  return kept.flatMap((i) => groups[i]);
}
