// default.contains: the text holds the words as the operator says (any, all, none), case-insensitive
// and as whole words: "cat" is in "a cat." but not in "concatenate". A word may be a phrase. The words
// are looked for in one pass over the text (whole-words.ts); a list whose words overlap in the text
// too much to judge makes a check that could not run, which fails: a deny rule must not be passed so.
import { type CheckDefinition, operatorHolds } from '../check.ts';
import { WholeWords } from './whole-words.ts';

export const contains: CheckDefinition = {
  kind: 'verdict',
  readsText: true,
  failOnErrorByDefault: true,
  prepare(parameters) {
    const words = (parameters.words as string[]).map((w) => w.toLowerCase());
    const operator = parameters.operator ?? 'any';
    const matcher = new WholeWords(words);
    // "any" and "none" are decided by the first word found; "all" needs every one.
    const enough = operator === 'all' ? new Set(words).size : 1;
    return (input) => {
      const present = matcher.found(input.text.toLowerCase(), enough);
      const { holds, found } = operatorHolds(operator, words, (word) => present.has(word));
      return { verdict: holds, explanation: `${operator}: found ${found.length === 0 ? 'none' : found.join(', ')} of ${words.join(', ')}` };
    };
  },
};
