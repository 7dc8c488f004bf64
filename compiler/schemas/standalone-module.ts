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

export function validatorDeclarations(exportNames: readonly string[]): string {
  const lines = [
    GENERATED_HEADER,
    "import type { ErrorObject } from 'ajv';",
    '',
    '/** An Ajv standalone validate function: true when valid; otherwise `errors` says why. */',
    'export type GeneratedValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };',
    '',
    ...exportNames.map((name) => `export declare const ${name}: GeneratedValidator;`),
    '',
  ];
  return lines.join('\n');
}
