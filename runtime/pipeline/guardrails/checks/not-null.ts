// default.notNull: there is text (not empty, not only whitespace).
import { type CheckDefinition, verdictOf } from '../check.ts';

export const notNull: CheckDefinition = {
  kind: 'verdict',
  readsText: true,
  prepare(parameters) {
    return (input) => {
      const holds = input.text.trim() !== '';
      return verdictOf(holds, parameters, holds ? 'has text' : 'no text');
    };
  },
};
