// default.sentenceCount: the number of sentences is within [minSentences, maxSentences]. A sentence
// ends at a run of `.`, `!` or `?`; a last fragment without one counts too ("Hi. Bye" is two).
import { type CheckDefinition, verdictOf } from '../check.ts';
import { withinBounds } from './bounds.ts';

export function countSentences(text: string): number {
  let sentences = 0;
  let open = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '.' || c === '!' || c === '?') {
      if (open) sentences++;
      open = false;
    } else if (c.trim() !== '') open = true;
  }
  return open ? sentences + 1 : sentences;
}

export const sentenceCount: CheckDefinition = {
  kind: 'verdict',
  readsText: true,
  prepare(parameters) {
    const bounds = withinBounds(parameters.minSentences, parameters.maxSentences, 'sentence');
    return (input) => {
      const sentences = countSentences(input.text);
      return verdictOf(bounds.holds(sentences), parameters, bounds.explain(sentences));
    };
  },
};
