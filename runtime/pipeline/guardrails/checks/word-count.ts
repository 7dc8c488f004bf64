// default.wordCount: the number of whitespace-separated words is within [minWords, maxWords].
import { type CheckDefinition, verdictOf } from '../check.ts';
import { withinBounds } from './bounds.ts';

/** Words: runs of non-whitespace. */
export function countWords(text: string): number {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const space = isSpace(text.charCodeAt(i));
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return words;
}

// What String.prototype.trim and /\s/ count as whitespace, without a regular expression per character.
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}

export const wordCount: CheckDefinition = {
  kind: 'verdict',
  readsText: true,
  prepare(parameters) {
    const bounds = withinBounds(parameters.minWords, parameters.maxWords, 'word');
    return (input) => {
      const words = countWords(input.text);
      return verdictOf(bounds.holds(words), parameters, bounds.explain(words));
    };
  },
};
