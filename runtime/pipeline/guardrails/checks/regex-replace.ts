// default.regexReplace, a transformer: every match of `rule` (linear-time engine) in every text of the
// request or answer is replaced by `redactText`, before the provider (input) or the client (output)
// sees it. With failOnDetection, a text that had a match fails the check.
import { compilePattern, replacePattern } from '../../../../compiler/config/linear-regex.ts';
import type { CheckDefinition } from '../check.ts';

export const regexReplace: CheckDefinition = {
  kind: 'transform',
  prepare(parameters) {
    const pattern = compilePattern(parameters.rule as string);
    const redactText = typeof parameters.redactText === 'string' ? parameters.redactText : '[REDACTED]';
    return {
      failOnDetection: parameters.failOnDetection === true,
      transform(text) {
        let found = 0;
        // A function replacement is taken literally: `$1` in redactText stays `$1`.
        const replaced = replacePattern(pattern, text, () => {
          found++;
          return redactText;
        });
        return { text: found === 0 ? text : replaced, found };
      },
    };
  },
};
