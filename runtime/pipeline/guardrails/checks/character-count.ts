// default.characterCount: the number of characters (Unicode code points) is within [minCharacters, maxCharacters].
import { type CheckDefinition, verdictOf } from '../check.ts';
import { withinBounds } from './bounds.ts';

export function countCharacters(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // A surrogate pair is one code point.
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

export const characterCount: CheckDefinition = {
  kind: 'verdict',
  readsText: true,
  prepare(parameters) {
    const bounds = withinBounds(parameters.minCharacters, parameters.maxCharacters, 'character');
    return (input) => {
      const characters = countCharacters(input.text);
      return verdictOf(bounds.holds(characters), parameters, bounds.explain(characters));
    };
  },
};
