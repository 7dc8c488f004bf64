// default.jsonKeys: the text is a JSON object (or holds one in a code fence) with the top-level keys
// as the operator says (any, all, none).
import { type CheckDefinition, operatorHolds } from '../check.ts';
import { jsonInText } from './json-in-text.ts';

export const jsonKeys: CheckDefinition = {
  kind: 'verdict',
  readsText: true,
  prepare(parameters) {
    const keys = parameters.keys as string[];
    const operator = parameters.operator ?? 'any';
    return (input) => {
      const json = jsonInText(input.text);
      if (!json.found || json.value === null || typeof json.value !== 'object' || Array.isArray(json.value)) return { verdict: false, explanation: 'no JSON object in the text' };
      const object = json.value as Record<string, unknown>;
      const { holds, found } = operatorHolds(operator, keys, (key) => Object.hasOwn(object, key));
      return { verdict: holds, explanation: `${operator}: the object has ${found.length === 0 ? 'none' : found.join(', ')} of ${keys.join(', ')}` };
    };
  },
};
