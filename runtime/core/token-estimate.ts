// Token counts the gateway estimates where no provider counted them: a stream that ended without a
// usage chunk (the request log, tokens rate limits and usage budgets then charge the estimate,
// marked `estimated`), and a Responses conversation fitted to a context window before any provider
// is asked. About four characters a token, plus a few per chat message for its role and framing:
// close to the vendor's tokenizer on prose, and on the high side for code and JSON.
const CHARS_PER_TOKEN = 4;
const TOKENS_PER_MESSAGE = 4;

/** The tokens of a text of `chars` characters. */
export function tokensOfChars(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** A string's tokens, or a structured value's by its JSON text; 0 for nothing. */
export function estimateTokens(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return tokensOfChars((typeof value === 'string' ? value : JSON.stringify(value)).length);
}

/** One chat message: its framing, its content (text or parts) and any tool calls. */
export function estimateMessageTokens(message: object): number {
  const { content, tool_calls: toolCalls } = message as { content?: unknown; tool_calls?: unknown };
  return TOKENS_PER_MESSAGE + estimateTokens(content) + estimateTokens(toolCalls);
}

/**
 * The input tokens of a chat (`messages`) or completions (`prompt`) request body, parsed; anything
 * else is counted by its JSON text.
 */
export function estimateInputTokens(params: unknown): number {
  if (params !== null && typeof params === 'object') {
    const { messages, prompt } = params as { messages?: unknown; prompt?: unknown };
    if (Array.isArray(messages)) {
      let tokens = 0;
      for (const message of messages) tokens += message !== null && typeof message === 'object' ? estimateMessageTokens(message) : TOKENS_PER_MESSAGE;
      return tokens;
    }
    if (prompt !== undefined) return estimateTokens(prompt);
  }
  return estimateTokens(params);
}
