// Token counts the gateway estimates where no provider counted them: a stream that ended without a
// usage chunk (the request log, tokens rate limits and usage budgets then charge the estimate,
// marked `estimated`), and a Responses conversation fitted to a context window before any provider
// is asked. About four bytes of UTF-8 a token, plus a few per chat message for its role and
// framing: close to the vendor's tokenizer on English prose (a byte a character), on the high side
// for code and JSON. Bytes, not characters: the tokenizers work on bytes, and a character of
// Chinese or Japanese (three bytes) is about a token, so four characters a token counted such text
// at a quarter of its tokens, and a client streaming it unmetered paid a quarter of its budget.
const BYTES_PER_TOKEN = 4;
const TOKENS_PER_MESSAGE = 4;

/** The tokens of a text of `bytes` bytes of UTF-8. */
export function tokensOfBytes(bytes: number): number {
  return Math.ceil(bytes / BYTES_PER_TOKEN);
}

/** A string's tokens, or a structured value's by its JSON text; 0 for nothing. */
export function estimateTokens(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return tokensOfBytes(Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value), 'utf8'));
}

/** One chat message: its framing, its content (text or parts) and any tool calls. */
export function estimateMessageTokens(message: object): number {
  const { content, tool_calls: toolCalls } = message as { content?: unknown; tool_calls?: unknown };
  return TOKENS_PER_MESSAGE + estimateTokens(content) + estimateTokens(toolCalls);
}

/**
 * The input tokens of a chat (`messages`, and the `tools` offered: providers count their definitions
 * as input; the messages API's top-level `system` too, and converse's `toolConfig`), a
 * generateContent (`contents`, `systemInstruction` and `tools`) or a completions (`prompt`) request
 * body, parsed; anything else is counted by its JSON text.
 */
export function estimateInputTokens(params: unknown): number {
  if (params !== null && typeof params === 'object') {
    const { messages, prompt, tools, system, toolConfig, contents, systemInstruction } = params as Record<string, unknown>;
    if (Array.isArray(messages)) {
      let tokens = estimateTokens(tools) + estimateTokens(system) + estimateTokens(toolConfig);
      for (const message of messages) tokens += message !== null && typeof message === 'object' ? estimateMessageTokens(message) : TOKENS_PER_MESSAGE;
      return tokens;
    }
    if (Array.isArray(contents)) {
      let tokens = estimateTokens(tools) + estimateTokens(systemInstruction);
      for (const content of contents) tokens += TOKENS_PER_MESSAGE + (content !== null && typeof content === 'object' ? estimateTokens((content as { parts?: unknown }).parts) : 0);
      return tokens;
    }
    if (prompt !== undefined) return estimateTokens(prompt);
  }
  return estimateTokens(params);
}
