// generated/validators.js: one fail-fast validator per schema file, for the request path.
import type { Artifact } from './artifact.ts';
import { createAjv } from './ajv-instance.ts';
import type { SchemaFile } from './schema-files.ts';
import { standaloneModule, validatorDeclarations } from './standalone-module.ts';

export function validatorsArtifacts(schemas: readonly SchemaFile[]): Artifact[] {
  const ajv = createAjv(schemas, { allErrors: false, source: true });
  const exports: Record<string, string> = {};
  for (const file of schemas) exports[file.exportName] = file.id;
  return [
    { path: 'generated/validators.js', contents: standaloneModule(ajv, exports) },
    { path: 'generated/validators.d.ts', contents: validatorDeclarations(schemas) },
  ];
}
