// generated/openapi.json: an OpenAPI 3.1 document of every endpoint in schema/api.json, with every
// schema file under components/schemas (3.1 speaks JSON Schema 2020-12, so schemas carry over).
import type { ApiEndpoint, ApiManifest } from './api-manifest.ts';
import { pathParams } from './api-manifest.ts';
import { GENERATED_JSON_NOTE, type Artifact } from './artifact.ts';
import { bundleSchemas } from './bundle.ts';
import type { JsonObject, SchemaFile } from './schema-files.ts';

const COMPONENTS = '#/components/schemas/';
export const API_KEY_SCHEME = 'gatewayApiKey';
// The manifest's own shape is build tooling, not part of the HTTP API.
const NOT_API_SHAPES = new Set(['meta/api-manifest.json', 'meta/provider-manifest.json']);

function refTo(file: string, byFile: ReadonlyMap<string, SchemaFile>): JsonObject {
  const schema = byFile.get(file);
  if (schema === undefined) throw new Error(`no schema file schema/${file}`);
  return { $ref: COMPONENTS + schema.typeName };
}

function queryParameters(ref: string, byFile: ReadonlyMap<string, SchemaFile>, components: Record<string, JsonObject>): JsonObject[] {
  const file = byFile.get(ref);
  if (file === undefined) throw new Error(`no schema file schema/${ref}`);
  const query = components[file.typeName];
  const properties = (query.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((query.required ?? []) as string[]);
  return Object.entries(properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.has(name),
    // Repeated keys (`include=a&include=b`) carry array values.
    explode: true,
    schema,
  }));
}

function responsesOf(endpoint: ApiEndpoint, byFile: ReadonlyMap<string, SchemaFile>): JsonObject {
  const out: JsonObject = {};
  for (const [status, ref] of Object.entries(endpoint.responses)) {
    const description = status === 'default' ? 'Error returned by the gateway itself.' : ref === null ? "The provider's response, passed through unchanged." : 'Success.';
    out[status] = ref === null ? { description } : { description, content: { 'application/json': { schema: refTo(ref, byFile) } } };
  }
  return out;
}

function operationOf(endpoint: ApiEndpoint, byFile: ReadonlyMap<string, SchemaFile>, components: Record<string, JsonObject>): JsonObject {
  const parameters: JsonObject[] = pathParams(endpoint.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
    ...(endpoint.catchAll === true ? { description: 'Any provider endpoint path; may contain `/`.' } : {}),
  }));
  if (endpoint.query !== undefined) parameters.push(...queryParameters(endpoint.query, byFile, components));
  return {
    operationId: endpoint.operationId,
    ...(endpoint.summary === undefined ? {} : { summary: endpoint.summary }),
    tags: [endpoint.plane === 'data' ? 'inference' : endpoint.handler.split('.')[0]],
    ...(endpoint.auth === 'none' ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(endpoint.requestBody === undefined
      ? {}
      : { requestBody: { required: true, content: { 'application/json': { schema: refTo(endpoint.requestBody, byFile) } } } }),
    responses: responsesOf(endpoint, byFile),
    'x-gateway-handler': endpoint.handler,
    'x-gateway-plane': endpoint.plane,
    'x-gateway-validate-body': endpoint.validateBody,
    ...(endpoint.catchAll === true ? { 'x-gateway-catch-all': true } : {}),
  };
}

export function openapiDocument(manifest: ApiManifest, schemas: readonly SchemaFile[]): JsonObject {
  const apiSchemas = schemas.filter((file) => !NOT_API_SHAPES.has(file.file));
  const byFile = new Map(apiSchemas.map((file) => [file.file, file]));
  // OpenAPI has no `$data`: the cross-field rule is kept as an extension so readers still see it.
  const components = bundleSchemas(apiSchemas, {
    prefix: COMPONENTS,
    onData: (keyword, pointer) => ({ 'x-gateway-data-rule': { [keyword]: pointer } }),
  });
  const paths: Record<string, JsonObject> = {};
  for (const endpoint of manifest.endpoints) {
    const item = (paths[endpoint.path] ??= {});
    item[endpoint.method.toLowerCase()] = operationOf(endpoint, byFile, components);
  }
  return {
    'x-generated': GENERATED_JSON_NOTE,
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Model gateway',
      version: '1',
      description: 'HTTP gateway in front of AI model providers. Paths are relative to the server root and carry the /v1 version segment.',
    },
    servers: [{ url: '/' }],
    security: [{ [API_KEY_SCHEME]: [] }],
    paths,
    components: {
      securitySchemes: {
        [API_KEY_SCHEME]: { type: 'apiKey', in: 'header', name: 'x-gateway-api-key', description: 'Gateway API key.' },
      },
      schemas: components,
    },
  };
}

export function openapiArtifact(manifest: ApiManifest, schemas: readonly SchemaFile[]): Artifact {
  return { path: 'generated/openapi.json', contents: `${JSON.stringify(openapiDocument(manifest, schemas), null, 2)}\n` };
}
