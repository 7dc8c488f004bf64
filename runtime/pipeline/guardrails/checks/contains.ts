// default.contains: the text holds the words as the operator says (any, all, none), case-insensitive
// and as whole words: "cat" is in "a cat." but not in "concatenate". A word may be a phrase.
import { type CheckDefinition, operatorHolds } from '../check.ts';

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** Whether `word` (lower case) occurs in `text` (lower case) with no letter, digit or underscore right before or after it. */
export function containsWord(text: string, word: string): boolean {
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    const before = at === 0 ? '' : text[at - 1];
    const after = text[at + word.length] ?? '';
    if (!WORD_CHAR.test(before) && !WORD_CHAR.test(after)) return true;
  }
  return false;
}

export const contains: CheckDefinition = {
  kind: 'verdict',
  readsText: true,
  prepare(parameters) {
    const words = (parameters.words as string[]).map((w) => w.toLowerCase());
    const operator = parameters.operator ?? 'any';
    return (input) => {
      const text = input.text.toLowerCase();
      const { holds, found } = operatorHolds(operator, words, (word) => containsWord(text, word));
      return { verdict: holds, explanation: `${operator}: found ${found.length === 0 ? 'none' : found.join(', ')} of ${words.join(', ')}` };
    };
  },
};
