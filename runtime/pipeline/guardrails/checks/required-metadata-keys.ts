// default.requiredMetadataKeys: the request's x-gateway-metadata has the keys as the operator says.
import { type CheckDefinition, operatorHolds } from '../check.ts';

export const requiredMetadataKeys: CheckDefinition = {
  kind: 'verdict',
  readsText: false,
  prepare(parameters) {
    const keys = parameters.metadataKeys as string[];
    const operator = parameters.operator ?? 'any';
    return (input) => {
      const { holds, found } = operatorHolds(operator, keys, (key) => Object.hasOwn(input.metadata, key));
      return { verdict: holds, explanation: `${operator}: metadata has ${found.length === 0 ? 'none' : found.join(', ')} of ${keys.join(', ')}` };
    };
  },
};
