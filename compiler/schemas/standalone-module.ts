// Turns an Ajv instance into an ES module that Node runs as is. Ajv's `esm: true` output still calls
// require() for its runtime helpers and for ajv-formats, so the module gets a createRequire shim.
import standaloneCode from 'ajv/dist/standalone/index.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { GENERATED_HEADER } from './artifact.ts';

/** `exports` maps an export name to the `$id` of the schema it validates. */
export function standaloneModule(ajv: Ajv2020, exports: Record<string, string>): string {
  const code = standaloneCode.default(ajv, exports).replace(/^"use strict";\s*/, '');
  return [
    GENERATED_HEADER,
    "import { createRequire } from 'node:module';",
    'const require = createRequire(import.meta.url);',
    code.trimEnd(),
    '',
  ].join('\n');
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
