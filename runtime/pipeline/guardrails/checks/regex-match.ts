// default.regexMatch: the rule matches somewhere in the text, on the linear-time engine (the compiler
// refused rules it cannot run). A text too long to match within the engine's bound (linear-regex.ts)
// is a check that could not run, and fails unless failOnError says otherwise: a deny rule must not be
// passed by text made long.
import { compilePattern, testPattern } from '../../../../compiler/config/linear-regex.ts';
import { type CheckDefinition, verdictOf } from '../check.ts';

export const regexMatch: CheckDefinition = {
  kind: 'verdict',
  readsText: true,
  failOnErrorByDefault: true,
  prepare(parameters) {
    const rule = parameters.rule as string;
    const pattern = compilePattern(rule);
    return (input) => {
      const holds = testPattern(pattern, input.text);
      return verdictOf(holds, parameters, holds ? `matches ${rule}` : `does not match ${rule}`);
    };
  },
};
