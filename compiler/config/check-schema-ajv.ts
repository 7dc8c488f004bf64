// Ajv's JSON Schema compiler (draft 2020-12), loaded the first time a jsonSchema check's schema is
// compiled: most configs have none (the request validators are generated code that needs only Ajv's
// small runtime helpers), and a serving process is ~0.5 MB smaller without it. The one-file build
// bundles it like the other createRequire loads (compiler/cli/build.ts, bundledRequires).
import { createRequire } from 'node:module';
import type { Ajv2020 } from 'ajv/dist/2020.js';

let loaded: typeof Ajv2020 | null = null;

/**
 * A new Ajv with the options every check schema is compiled with. One per schema: a shared one keeps
 * every schema it compiled and refuses a second schema with an $id it has seen.
 */
export function newCheckSchemaAjv(): Ajv2020 {
  loaded ??= (createRequire(import.meta.url)('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020;
  return new loaded({ strict: false, allErrors: false, validateFormats: false });
}
