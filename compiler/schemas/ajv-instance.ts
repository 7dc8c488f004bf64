// One place that decides how Ajv reads our schemas, so the generated validators, the tests and the
// strict-mode check all compile them the same way.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { SchemaFile } from './schema-files.ts';

export interface AjvSettings {
  allErrors: boolean;
  /** Emit source for standalone modules. */
  source: boolean;
  /** Attach `schema`/`parentSchema` to errors: the config formatter reads allowed keys from them. */
  verbose?: boolean;
}

export function createAjv(schemas: readonly SchemaFile[], settings: AjvSettings): Ajv2020 {
  const ajv = new Ajv2020({
    $data: true,
    strict: true,
    // Key-set rules (`anyOf: [{ required: [...] }]`) and if/then guards name properties declared
    // beside them, not inside them; strictRequired would reject that standard idiom.
    strictRequired: false,
    // `["string", "null"]` is how the spec's "string or null" is written; strict mode would refuse it otherwise.
    allowUnionTypes: true,
    allErrors: settings.allErrors,
    verbose: settings.verbose ?? false,
    code: settings.source ? { source: true, esm: true, lines: true } : {},
  });
  addFormats.default(ajv);
  for (const file of schemas) ajv.addSchema(file.schema, file.id);
  return ajv;
}
