// What the mock provider (gateway mock-provider) answers, whatever the API asked: "[mock]" and the
// words of the last thing the user said.
import { isJsonObject } from '../core/json-object.ts';

/**
 * The text of the last user turn: a chat message's or a Responses input item's content, a string or
 * a list of text parts (`text`, `input_text`); other parts are skipped.
 */
export function lastUserText(turns: readonly Record<string, unknown>[]): string {
  const last = [...turns].reverse().find((turn) => turn.role === 'user');
  const content = last?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter(isJsonObject).map((part) => (typeof part.text === 'string' && (part.type === 'text' || part.type === 'input_text') ? part.text : '')).join(' ');
}

/** "[mock]" and the prompt's words, one token per word. */
export function reply(prompt: string): string[] {
  const words = prompt.split(/\s+/).filter((w) => w !== '');
  return ['[mock]', ...(words.length === 0 ? [' Hello!'] : words.map((w) => ` ${w}`))];
}

