// default.allUppercase and default.allLowercase: no letter of the text is of the other case. A text
// without cased letters ("123 !") holds for both.
import { type CheckDefinition, verdictOf } from '../check.ts';

const LOWER = /\p{Ll}/u;
const UPPER = /[\p{Lu}\p{Lt}]/u;

export const allUppercase: CheckDefinition = {
  kind: 'verdict',
  readsText: true,
  prepare(parameters) {
    return (input) => {
      const holds = !LOWER.test(input.text);
      return verdictOf(holds, parameters, holds ? 'no lower-case letter' : 'has a lower-case letter');
    };
  },
};

export const allLowercase: CheckDefinition = {
  kind: 'verdict',
  readsText: true,
  prepare(parameters) {
    return (input) => {
      const holds = !UPPER.test(input.text);
      return verdictOf(holds, parameters, holds ? 'no upper-case letter' : 'has an upper-case letter');
    };
  },
};
