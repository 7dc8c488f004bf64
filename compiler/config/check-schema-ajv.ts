// Ajv's JSON Schema compiler (draft 2020-12), loaded the first time a jsonSchema check's schema is
// compiled: most configs have none (the request validators are generated code that needs only Ajv's
// small runtime helpers), and a serving process is ~0.5 MB smaller without it. The one-file build
// bundles it like the other createRequire loads (compiler/cli/build.ts, bundledRequires).
import { createRequire } from 'node:module';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { checkPattern, compilePattern, type PatternChecker, testPattern } from './linear-regex.ts';

let loaded: typeof Ajv2020 | null = null;

/**
 * A schema's `pattern` and `patternProperties` run on the linear-time engine, as every other user
 * pattern does: on Ajv's default (JavaScript's backtracking RegExp), `"pattern": "^(a+)+$"` in an
 * input guardrail (an inline config can carry one) held the event loop for seconds on 30 letters a
 * client wrote. A pattern the engine cannot run makes the schema fail to compile, with the reason.
 */
function linearRegExp(pattern: string): { test: (text: string) => boolean; toString: () => string } {
  const problem = schemaPatternProblem(pattern);
  if (problem !== null) throw new Error(problem);
  const compiled = compilePattern(pattern);
  return { test: (text) => testPattern(compiled, text), toString: () => pattern };
}
/** Ajv names the engine in code it generates for standalone modules, which checks never are. */
linearRegExp.code = 'linearRegExp';

/** Why a schema's `pattern` (or `patternProperties` key) cannot run on the linear-time engine, or null. */
export function schemaPatternProblem(pattern: string, patterns: PatternChecker = checkPattern): string | null {
  const check = patterns(pattern);
  return check.ok ? null : `the pattern ${JSON.stringify(pattern)} ${check.unsupported ? 'cannot run on the linear-time engine (RE2 syntax)' : 'is not valid'}: ${check.message}`;
}

/**
 * A new Ajv with the options every check schema is compiled with. One per schema: a shared one keeps
 * every schema it compiled and refuses a second schema with an $id it has seen.
 */
export function newCheckSchemaAjv(): Ajv2020 {
  loaded ??= (createRequire(import.meta.url)('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020;
  return new loaded({ strict: false, allErrors: false, validateFormats: false, code: { regExp: linearRegExp } });
}
