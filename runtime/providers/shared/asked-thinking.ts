// The thinking a chat request asks for, in the terms of the families that ask for it otherwise: the
// chat API's `reasoning_effort` as Claude's extended thinking (adaptive at an effort from Claude 4.6
// on, a token budget before; through the messages API and cloud C's converse) and as Gemini's
// thinking (a level for Gemini 3 and later, a token budget before), and Claude's own `thinking` as
// Gemini's, so that one body can fall back from Claude to Gemini. One table of budgets for both, so
// "high" means the same amount of thinking whichever family answers (docs/providers.md). A level an
// API has no name for is refused here; one the API names but a model lacks is the model's to refuse.
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

/** Claude's effort levels (`output_config.effort`), for each of the chat API's but `none`: Claude has no minimal, and its least is low. */
const CLAUDE_EFFORTS: Readonly<Record<Exclude<ReasoningEffort, 'none'>, string>> = { minimal: 'low', low: 'low', medium: 'medium', high: 'high', xhigh: 'xhigh' };

/**
 * Whether a Claude model takes adaptive thinking with an effort: Claude 4.6 and later, and the
 * Mythos and Fable lines (the later ones take nothing else); earlier models take a budget. Read from
 * the model's name (`claude-opus-4-6`, `anthropic.claude-sonnet-4-5-20250929-v1:0`,
 * `claude-3-7-sonnet-20250219`): its first two numbers of one or two digits are its version.
 */
export function claudeTakesAdaptive(model: string | undefined): boolean {
  const name = /claude-([a-z0-9.:-]+)/.exec(model ?? '')?.[1];
  if (name === undefined) return false;
  const parts = name.split(/[-.]/);
  if (parts.includes('mythos') || parts.includes('fable')) return true;
  const [major = 0, minor = 0] = parts.filter((part) => /^\d{1,2}$/.test(part)).map(Number);
  return major > 4 || (major === 4 && minor >= 6);
}

/** Claude's thinking, effort and the answer's token limit of a chat request: as sent, or from its effort. */
export interface ClaudeThinking {
  thinking: unknown;
  /** `output_config.effort` (converse: `outputConfig.effort`), for a model that takes adaptive thinking. */
  effort: string | undefined;
  maxTokens: number | undefined;
}

/**
 * A Claude model's thinking for a chat request: its own `thinking` as sent, or for an effort the
 * form the model takes. Claude 4.6 and later: adaptive thinking at the effort's level (`none`:
 * thinking disabled, as those models may think by default). Earlier models: an enabled thinking with
 * the effort's budget (`none`: none); the budget counts in `max_tokens`, as the chat API's
 * `max_completion_tokens` counts reasoning, and must be below it: a limit the budget does not fit
 * under is refused. Without a limit, the answer gets DEFAULT_ANSWER_TOKENS beyond the effort's
 * budget, adaptive or not (so that thinking does not eat the answer's room).
 */
export function claudeThinkingOf(chat: ChatRequest, provider: string): ClaudeThinking {
  const effort = reasoningEffortOf(chat);
  const maxTokens = maxTokensOf(chat);
  const own = chat.thinking ?? undefined;
  if (effort === undefined) return { thinking: own, effort: undefined, maxTokens };
  if (own !== undefined) throw bothAsked();
  const adaptive = claudeTakesAdaptive(chat.model);
  if (effort === 'none') return { thinking: adaptive ? { type: 'disabled' } : undefined, effort: undefined, maxTokens };
  const budget = THINKING_BUDGETS[effort];
  if (adaptive) return { thinking: { type: 'adaptive' }, effort: CLAUDE_EFFORTS[effort], maxTokens: maxTokens ?? budget + DEFAULT_ANSWER_TOKENS };
  if (maxTokens !== undefined && maxTokens <= budget) {
    throw new GatewayError('invalid_request_body',
      `Invalid request body: "reasoning_effort" "${effort}" asks the provider "${provider}" for a thinking budget of ${budget} tokens, which the answer's token limit (${maxTokens}) counts and must exceed: raise the limit above ${budget}, or ask for a lower effort.`,
      '/reasoning_effort');
  }
  return { thinking: { type: 'enabled', budget_tokens: budget }, effort: undefined, maxTokens: maxTokens ?? budget + DEFAULT_ANSWER_TOKENS };
}

/** Gemini 3 and later take a thinking level; earlier models a budget. */
const GEMINI_MAJOR = /^gemini-(\d+)/;

/**
 * Gemini's `thinkingConfig` for a chat request. An effort: Gemini 3 and later take it as their level
 * (they cannot stop thinking, and have no level above high: `none` and `xhigh` are refused), other
 * models the effort's budget (`none`: 0, thinking off where the model allows it); the thought
 * summaries asked for with it (answered as `reasoning_content`). Claude's
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
  if (effort === 'none' && major < 3) return { thinkingBudget: 0 };
  // The thoughts are asked for, as Claude's thinking comes back: as reasoning_content.
  if (major < 3) return { thinkingBudget: THINKING_BUDGETS[effort as Exclude<ReasoningEffort, 'none'>], includeThoughts: true };
  if (effort === 'none' || effort === 'xhigh') {
    throw new GatewayError('unsupported_parameter',
      `The model "${chat.model}" of the provider "${provider}" thinks at a level from minimal to high${effort === 'none' ? ' and cannot stop thinking' : ''}: "reasoning_effort" "${effort}" has no such level.`,
      'reasoning_effort');
  }
  return { thinkingLevel: effort, includeThoughts: true };
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
