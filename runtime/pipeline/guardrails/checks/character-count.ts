// default.characterCount: the number of characters (Unicode code points) is within [minCharacters, maxCharacters].
import { type CheckDefinition, verdictOf } from '../check.ts';
import { withinBounds } from './bounds.ts';
import { countCharacters } from '../../../core/code-points.ts';

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
