// Claude's checks of a request for extended thinking, worded as the messages API words them (cloud
// C's converse relays the model's own): a budget of at least 1,024 tokens, below the answer's
// `max_tokens` (which counts the thinking), and no temperature other than 1.

/** Why Claude refuses `thinking` with this limit and temperature; null when it takes them. `maxTokens` undefined: not given (a token count). */
export function claudeThinkingRefusal(thinking: unknown, maxTokens: unknown, temperature: unknown): string | null {
  const asked = thinking as { type?: unknown; budget_tokens?: unknown } | null | undefined;
  if (asked?.type !== 'enabled') return null;
  const budget = asked.budget_tokens;
  if (!Number.isInteger(budget) || (budget as number) < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
  if (typeof maxTokens === 'number' && maxTokens <= (budget as number)) {
    return '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size';
  }
  if (temperature !== undefined && temperature !== 1) return '`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility';
  return null;
}
