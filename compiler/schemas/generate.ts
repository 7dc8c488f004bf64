// Entry point of schema code generation: builds every artifact in memory (deterministically) and
// writes them. `gateway compile` calls these; running this file directly writes them too.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Artifact } from './artifact.ts';
import { clientArtifacts } from '../client/artifacts.ts';
import { checksArtifact } from './checks.ts';
import { configValidatorArtifacts } from './config-validator.ts';
import { checkManifest } from './api-manifest.ts';
import { openapiArtifact } from './openapi.ts';
import { routesArtifact } from './routes.ts';
import { loadManifest, loadSchemaFiles, REPO_ROOT, SCHEMA_DIR } from './schema-files.ts';
import { typesArtifact } from './types.ts';
import { validatorsArtifacts } from './validators.ts';

export async function generateArtifacts(schemaDir: string = SCHEMA_DIR): Promise<Artifact[]> {
  const schemas = await loadSchemaFiles(schemaDir);
  const manifest = checkManifest(await loadManifest(schemaDir), schemas);
  const types = await typesArtifact(schemas);
  return [
    ...validatorsArtifacts(schemas),
    ...configValidatorArtifacts(schemas),
    checksArtifact(schemas),
    types,
    routesArtifact(manifest, schemas),
    openapiArtifact(manifest, schemas),
    ...(await clientArtifacts(manifest, schemas, types)),
  ];
}

/** Only generated/client/ (and the types it copies): what `gateway generate client` writes. */
export async function generateClientArtifacts(schemaDir: string = SCHEMA_DIR): Promise<Artifact[]> {
  const schemas = await loadSchemaFiles(schemaDir);
  const manifest = checkManifest(await loadManifest(schemaDir), schemas);
  return clientArtifacts(manifest, schemas, await typesArtifact(schemas));
}

/** Writes every artifact under the repo root and returns their paths. */
export async function writeArtifacts(root: string = REPO_ROOT): Promise<string[]> {
  const artifacts = await generateArtifacts(join(root, 'schema'));
  for (const artifact of artifacts) {
    const target = join(root, artifact.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, artifact.contents);
  }
  return artifacts.map((artifact) => artifact.path);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const written = await writeArtifacts();
  for (const path of written) console.log(`wrote ${path}`);
}
