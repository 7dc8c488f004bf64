// Turns an Ajv instance into an ES module that Node runs as is. Ajv's `esm: true` output still calls
// require() for its runtime helpers and for ajv-formats, so the module gets a createRequire shim.
import standaloneCode from 'ajv/dist/standalone/index.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { GENERATED_HEADER } from './artifact.ts';

/** `exports` maps an export name to the `$id` of the schema it validates. */
export function standaloneModule(ajv: Ajv2020, exports: Record<string, string>): string {
  const code = standaloneCode.default(ajv, exports).replace(/^"use strict";\s*/, '');
  return latin1Source([
    GENERATED_HEADER,
    "import { createRequire } from 'node:module';",
    'const require = createRequire(import.meta.url);',
    code.trimEnd(),
    '',
  ].join('\n'));
}

/**
 * The code with every character past Latin-1 written as a \u escape. V8 keeps a module's source in
 * memory, one byte a character only when all of them fit one: a single "…" in a schema description
 * made generated/validators.js a 2.2 MB string instead of 1.1. The characters sit in string literals
 * (the schemas' texts), where the escape means the same.
 */
function latin1Source(code: string): string {
  return code.replace(/[^\u0000-\u00ff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export interface ValidatorExport {
  exportName: string;
  /** Type in generated/types.ts that a passing value has. */
  typeName: string;
}

export function validatorDeclarations(exports: readonly ValidatorExport[]): string {
  const typeNames = [...new Set(exports.map((entry) => entry.typeName))].sort();
  const lines = [
    GENERATED_HEADER,
    "import type { ErrorObject } from 'ajv';",
    `import type { ${typeNames.join(', ')} } from './types.ts';`,
    '',
    '/** An Ajv standalone validate function: true when valid (narrowing to T); otherwise `errors` says why. */',
    'export type GeneratedValidator<T> = ((data: unknown) => data is T) & { errors?: ErrorObject[] | null };',
    '',
    ...exports.map((entry) => `export declare const ${entry.exportName}: GeneratedValidator<${entry.typeName}>;`),
    '',
  ];
  return lines.join('\n');
}
