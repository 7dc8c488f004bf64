// default.endsWith: the text, trailing whitespace ignored, ends with `suffix`.
import { type CheckDefinition, verdictOf } from '../check.ts';

export const endsWith: CheckDefinition = {
  kind: 'verdict',
  readsText: true,
  prepare(parameters) {
    const suffix = parameters.suffix as string;
    return (input) => {
      const holds = input.text.trimEnd().endsWith(suffix);
      return verdictOf(holds, parameters, holds ? `ends with ${JSON.stringify(suffix)}` : `does not end with ${JSON.stringify(suffix)}`);
    };
  },
};
