// generated/config-validator.js: the config schema compiled with allErrors, for `gateway compile` and
// admin paths that report every problem at once (never the hot path).
import type { Artifact } from './artifact.ts';
import { createAjv } from './ajv-instance.ts';
import type { SchemaFile } from './schema-files.ts';
import { standaloneModule, validatorDeclarations } from './standalone-module.ts';

export const CONFIG_SCHEMA_FILE = 'config.json';
export const CONFIG_ALL_ERRORS_EXPORT = 'validateConfigAllErrors';

/** Empty until schema/config.json exists, so the other artifacts can be built before it lands. */
export function configValidatorArtifacts(schemas: readonly SchemaFile[]): Artifact[] {
  const config = schemas.find((file) => file.file === CONFIG_SCHEMA_FILE);
  if (config === undefined) return [];
  // Every schema is registered because the config schema may reference shared ones.
  const ajv = createAjv(schemas, { allErrors: true, source: true, verbose: true });
  return [
    { path: 'generated/config-validator.js', contents: standaloneModule(ajv, { [CONFIG_ALL_ERRORS_EXPORT]: config.id }) },
    { path: 'generated/config-validator.d.ts', contents: validatorDeclarations([{ exportName: CONFIG_ALL_ERRORS_EXPORT, typeName: config.typeName }]) },
  ];
}
