// Claude's checks of a request for thinking, worded as the messages API words them (cloud C's
// converse relays the model's own), by the model's generation: models before 4.6 take an enabled
// thinking with a budget of at least 1,024 tokens below the answer's `max_tokens` (which counts the
// thinking); 4.6 takes that or adaptive thinking; 4.7 and later, and the Mythos and Fable lines, take
// adaptive thinking only (Mythos and Fable cannot disable it). An effort (`output_config.effort`) is
// one of Claude's levels (xhigh from 4.7 on), on 4.5 and later. No temperature other than 1 with
// thinking. The model's version is read from its name (claude-models.ts).
import { claudeVersionOf } from './claude-models.ts';

type Generation = 'budget' | 'both' | 'adaptive';

/** The thinking forms a Claude model takes. */
function generationOf(model: string): Generation {
  const { version, laterLine } = claudeVersionOf(model);
  return laterLine || version >= 407 ? 'adaptive' : version === 406 ? 'both' : 'budget';
}

const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'];
const DOCS = 'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

/** Whether the request has the model think: an enabled or adaptive thinking. */
export function thinkingOn(thinking: unknown): boolean {
  const type = (thinking as { type?: unknown } | null | undefined)?.type;
  return type === 'enabled' || type === 'adaptive';
}

/**
 * Why Claude refuses this `thinking`, effort, limit and temperature for `model`; null when it takes
 * them. `maxTokens` undefined: not given (a token count).
 */
export function claudeThinkingRefusal(model: string, thinking: unknown, effort: unknown, maxTokens: unknown, temperature: unknown): string | null {
  const generation = generationOf(model);
  const { version, laterLine } = claudeVersionOf(model);
  if (effort !== undefined) {
    if (!EFFORTS.includes(effort as string)) return `output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'`;
    if (version < 405 && !laterLine) return 'output_config.effort: effort is not supported on this model.';
    if (effort === 'xhigh' && generation !== 'adaptive') return `output_config.effort: 'xhigh' is not supported on this model.`;
  }
  const asked = thinking as { type?: unknown; budget_tokens?: unknown } | null | undefined;
  if (asked?.type === 'disabled' && laterLine) return '"thinking.type.disabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.';
  if (asked?.type === 'adaptive' && generation === 'budget') return `adaptive thinking is not supported on this model. Use "thinking.type.enabled" with "budget_tokens". ${DOCS}`;
  if (asked?.type === 'enabled') {
    if (generation === 'adaptive') return '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.';
    const budget = asked.budget_tokens;
    if (!Number.isInteger(budget) || (budget as number) < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    if (typeof maxTokens === 'number' && maxTokens <= (budget as number)) return `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. ${DOCS}#max-tokens-and-context-window-size`;
  }
  if (thinkingOn(thinking) && temperature !== undefined && temperature !== 1) return `\`temperature\` may only be set to 1 when thinking is enabled. ${DOCS}#feature-compatibility`;
  return null;
}
