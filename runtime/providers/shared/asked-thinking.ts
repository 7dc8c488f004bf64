// The thinking a chat request asks for, in the terms of the families that ask for it otherwise: the
// chat API's `reasoning_effort` as Claude's extended thinking (a token budget, through the messages
// API and cloud C's converse) and as Gemini's thinking (a level for Gemini 3 and later, a token
// budget before), and Claude's own `thinking` as Gemini's, so that one body can fall back from
// Claude to Gemini. One table of budgets for both, so "high" means the same amount of thinking
// whichever family answers (docs/providers.md).
import { GatewayError } from '../../core/errors.ts';
import { maxTokensOf, type ChatRequest } from './chat.ts';

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/**
 * Thinking tokens per effort where thinking is a budget. Gemini's own chat-compatible endpoint maps
 * low, medium and high to 1,024, 8,192 and 24,576; Claude takes no budget under 1,024, so minimal
 * is that least budget too.
 */
export const THINKING_BUDGETS: Readonly<Record<Exclude<ReasoningEffort, 'none'>, number>> = {
  minimal: 1024, low: 1024, medium: 8192, high: 24576, xhigh: 32768,
};

/** The request's effort; undefined when not set (the schema of chat-completion-translated.json checked its value). */
export function reasoningEffortOf(chat: Readonly<Record<string, unknown>>): ReasoningEffort | undefined {
  const effort = chat.reasoning_effort;
  return typeof effort === 'string' ? effort as ReasoningEffort : undefined;
}

/** Whether a chat body asks for thinking by effort: any effort but `none`. */
export function asksEffort(chat: Readonly<Record<string, unknown>>): boolean {
  const effort = reasoningEffortOf(chat);
  return effort !== undefined && effort !== 'none';
}

/** The answer's tokens when a request sets no limit: the messages API's required `max_tokens`, and what Claude gets beyond a thinking budget. */
export const DEFAULT_ANSWER_TOKENS = 4096;

function bothAsked(): GatewayError {
  return new GatewayError('invalid_request_body', 'Invalid request body: "reasoning_effort" and "thinking" both ask for thinking; send one of them.', '/reasoning_effort');
}

/** Claude's thinking and the answer's token limit of a chat request: as sent, or from its effort. */
export interface ClaudeThinking {
  thinking: unknown;
  maxTokens: number | undefined;
}

/**
 * A Claude model's `thinking` for a chat request: its own `thinking` as sent, or for an effort an
 * enabled thinking with the effort's budget (`none`: none). Claude's `max_tokens` counts the
 * thinking, as the chat API's `max_completion_tokens` counts reasoning, and must exceed the budget:
 * a limit the budget does not fit under is refused, and without a limit the answer gets
 * DEFAULT_ANSWER_TOKENS beyond the budget.
 */
export function claudeThinkingOf(chat: ChatRequest, provider: string): ClaudeThinking {
  const effort = reasoningEffortOf(chat);
  const maxTokens = maxTokensOf(chat);
  const own = chat.thinking ?? undefined;
  if (effort === undefined) return { thinking: own, maxTokens };
  if (own !== undefined) throw bothAsked();
  if (effort === 'none') return { thinking: undefined, maxTokens };
  const budget = THINKING_BUDGETS[effort];
  if (maxTokens !== undefined && maxTokens <= budget) {
    throw new GatewayError('invalid_request_body',
      `Invalid request body: "reasoning_effort" "${effort}" asks the provider "${provider}" for a thinking budget of ${budget} tokens, which the answer's token limit (${maxTokens}) counts and must exceed: raise the limit above ${budget}, or ask for a lower effort.`,
      '/reasoning_effort');
  }
  return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens: maxTokens ?? budget + DEFAULT_ANSWER_TOKENS };
}

/** Gemini 3 and later take a thinking level; earlier models a budget. */
const GEMINI_MAJOR = /^gemini-(\d+)/;

/**
 * Gemini's `thinkingConfig` for a chat request. An effort: Gemini 3 and later take it as their level
 * (they cannot stop thinking, and have no level above high: `none` and `xhigh` are refused), other
 * models the effort's budget (`none`: 0, thinking off where the model allows it). Claude's
 * `thinking`: `enabled` its budget with the thoughts asked for (answered as `reasoning_content`, as
 * Claude's are), `adaptive` the model's own budget (-1) likewise, `disabled` a budget of 0.
 */
export function geminiThinkingOf(chat: ChatRequest, provider: string): Record<string, unknown> | undefined {
  const effort = reasoningEffortOf(chat);
  const own = chat.thinking ?? undefined;
  if (effort !== undefined && own !== undefined) throw bothAsked();
  if (own !== undefined) return geminiOfClaudeThinking(own);
  if (effort === undefined) return undefined;
  const major = Number(GEMINI_MAJOR.exec(chat.model ?? '')?.[1] ?? 0);
  if (major < 3) return { thinkingBudget: effort === 'none' ? 0 : THINKING_BUDGETS[effort] };
  if (effort === 'none' || effort === 'xhigh') {
    throw new GatewayError('unsupported_parameter',
      `The model "${chat.model}" of the provider "${provider}" thinks at a level from minimal to high${effort === 'none' ? ' and cannot stop thinking' : ''}: "reasoning_effort" "${effort}" has no such level.`,
      'reasoning_effort');
  }
  return { thinkingLevel: effort };
}

/** Claude's `thinking` as Gemini's; any other shape is refused, as Claude refuses it. */
function geminiOfClaudeThinking(thinking: unknown): Record<string, unknown> {
  const asked = thinking as { type?: unknown; budget_tokens?: unknown };
  const type = typeof thinking === 'object' && !Array.isArray(thinking) ? asked.type : undefined;
  if (type === 'disabled') return { thinkingBudget: 0 };
  if (type === 'adaptive') return { thinkingBudget: -1, includeThoughts: true };
  if (type === 'enabled' && Number.isInteger(asked.budget_tokens) && (asked.budget_tokens as number) >= 0) return { thinkingBudget: asked.budget_tokens, includeThoughts: true };
  throw new GatewayError('invalid_request_body', 'Invalid request body: thinking must be {"type": "enabled", "budget_tokens": <tokens>}, {"type": "adaptive"} or {"type": "disabled"}.', '/thinking');
}
