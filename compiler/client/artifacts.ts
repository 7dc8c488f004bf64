// generated/client/: the typed client, dependency-free. client.ts is emitted with ts-morph; http.ts is
// the transport (compiler/client/template/http.ts, copied); types.ts is generated/types.ts; the answer
// validators are Ajv standalone code bundled (esbuild) with the Ajv helpers they call, so nothing is
// imported from node_modules.
import { readFile } from 'node:fs/promises';
import * as esbuild from 'esbuild';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { GENERATED_HEADER, type Artifact } from '../schemas/artifact.ts';
import { createAjv } from '../schemas/ajv-instance.ts';
import type { ApiManifest } from '../schemas/api-manifest.ts';
import { REPO_ROOT, type SchemaFile } from '../schemas/schema-files.ts';
import { emitClient } from './emit-client.ts';
import { clientOperations } from './operations.ts';

export const CLIENT_DIR = 'generated/client';
const TEMPLATE = new URL('./template/http.ts', import.meta.url);

export async function clientArtifacts(manifest: ApiManifest, schemas: readonly SchemaFile[], types: Artifact): Promise<Artifact[]> {
  const operations = clientOperations(manifest, schemas);
  // The answers' validators, and the error body's (gateway contract-check reads error answers too).
  const validators = [...new Set(operations.flatMap((op) => [op.validator, op.errorValidator]).filter((v): v is string => v !== null))].sort();
  const template = await readFile(TEMPLATE, 'utf8');
  return [
    { path: `${CLIENT_DIR}/client.ts`, contents: emitClient(operations) },
    { path: `${CLIENT_DIR}/http.ts`, contents: `${GENERATED_HEADER}\n${template}` },
    { path: `${CLIENT_DIR}/types.ts`, contents: types.contents },
    { path: `${CLIENT_DIR}/validators.js`, contents: await validatorsModule(schemas, validators) },
    { path: `${CLIENT_DIR}/validators.d.ts`, contents: validatorsDeclarations(validators) },
  ];
}

async function validatorsModule(schemas: readonly SchemaFile[], exportNames: readonly string[]): Promise<string> {
  // All errors: a contract check reports every mismatch of an answer, not only the first.
  const ajv = createAjv(schemas, { allErrors: true, source: true });
  const byExport = new Map(schemas.map((file) => [file.exportName, file.id]));
  const code = standaloneCode.default(ajv, Object.fromEntries(exportNames.map((name) => [name, byExport.get(name)!])));
  const bundled = await esbuild.build({
    stdin: { contents: code, resolveDir: REPO_ROOT, loader: 'js', sourcefile: 'validators.js' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['main'],
    legalComments: 'none',
    logLevel: 'silent',
  });
  return `${GENERATED_HEADER}\n// @ts-nocheck\n${bundled.outputFiles[0].text}`;
}

function validatorsDeclarations(exportNames: readonly string[]): string {
  return [
    GENERATED_HEADER,
    "import type { Validator } from './http.ts';",
    '',
    ...exportNames.map((name) => `export declare const ${name}: Validator;`),
    '',
  ].join('\n');
}
