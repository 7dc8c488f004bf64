// default.regexMatch: the rule matches somewhere in the text, on the linear-time engine (the compiler
// refused rules it cannot run).
import { compilePattern, testPattern } from '../../../../compiler/config/linear-regex.ts';
import { type CheckDefinition, verdictOf } from '../check.ts';

export const regexMatch: CheckDefinition = {
  kind: 'verdict',
  readsText: true,
  prepare(parameters) {
    const rule = parameters.rule as string;
    const pattern = compilePattern(rule);
    return (input) => {
      const holds = testPattern(pattern, input.text);
      return verdictOf(holds, parameters, holds ? `matches ${rule}` : `does not match ${rule}`);
    };
  },
};
