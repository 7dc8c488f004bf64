// generated/types.ts: TypeScript types for every schema, compiled from one synthetic root so a shape
// referenced from several files is declared once.
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { GENERATED_HEADER, type Artifact } from './artifact.ts';
import { bundleSchemas } from './bundle.ts';
import { typeShape } from './type-shape.ts';
import type { SchemaFile } from './schema-files.ts';

export const TYPES_ROOT_NAME = 'GatewaySchemaTypes';

export async function typesArtifact(schemas: readonly SchemaFile[]): Promise<Artifact> {
  const $defs = typeShape(bundleSchemas(schemas, { prefix: '#/$defs/' })) as Record<string, unknown>;
  const root: JSONSchema = {
    title: TYPES_ROOT_NAME,
    description: 'Every schema file under schema/, by type name.',
    type: 'object',
    additionalProperties: false,
    required: Object.keys($defs),
    properties: Object.fromEntries(Object.keys($defs).map((name) => [name, { $ref: `#/$defs/${name}` }])),
    $defs: $defs as JSONSchema['$defs'],
  };
  const source = await compile(root, TYPES_ROOT_NAME, {
    bannerComment: GENERATED_HEADER,
    additionalProperties: true,
    declareExternallyReferenced: true,
    enableConstEnums: false,
    format: true,
    // Bounded arrays would become tuple unions, which are awkward to build and read.
    ignoreMinAndMaxItems: true,
    strictIndexSignatures: false,
    unknownAny: true,
    unreachableDefinitions: false,
    // Nothing is left to resolve after bundling; a stray URL must fail rather than reach the network.
    $refOptions: { resolve: { external: false } },
    style: { singleQuote: true, printWidth: 120 },
  });
  return { path: 'generated/types.ts', contents: source };
}
