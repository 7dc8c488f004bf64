// default.modelWhitelist: the request's model is one of `models`.
import { type CheckDefinition, verdictOf } from '../check.ts';

export const modelWhitelist: CheckDefinition = {
  kind: 'verdict',
  readsText: false,
  prepare(parameters) {
    const models = new Set(parameters.models as string[]);
    return (input) => {
      const holds = input.model !== null && models.has(input.model);
      return verdictOf(holds, parameters, input.model === null ? 'the request names no model' : `${input.model} is ${holds ? '' : 'not '}allowed`);
    };
  },
};
