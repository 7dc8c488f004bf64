// Reads schema/api.json, checks it against schema/meta/api-manifest.json and the cross-file rules
// that a schema cannot state (referenced schemas exist, operation IDs and method+path are unique).
import { createAjv } from './ajv-instance.ts';
import type { SchemaFile } from './schema-files.ts';

export const MANIFEST_SCHEMA_FILE = 'meta/api-manifest.json';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type BodyValidation = 'always' | 'when-read' | 'never';

export interface ApiEndpoint {
  operationId: string;
  summary?: string;
  method: HttpMethod;
  /** OpenAPI template relative to the server root: `/v1/batches/{batch_id}/cancel`. */
  path: string;
  catchAll?: boolean;
  auth: 'none' | 'api_key';
  plane: 'data' | 'control';
  handler: string;
  /** Schema file below schema/. */
  requestBody?: string;
  validateBody: BodyValidation;
  query?: string;
  /** Status (or `default`) to a schema file; null: the provider's body, passed through. */
  responses: Record<string, string | null>;
  /** The generated client's method for this operation; absent: not in the client. */
  client?: ClientBinding;
}

export interface ClientBinding {
  /** Groups and method name: `policies.rateLimits.usage`. */
  method: string;
  body?: 'json' | 'multipart';
  returns?: 'json' | 'text' | 'bytes';
}

export interface ApiManifest {
  endpoints: ApiEndpoint[];
}

export function pathParams(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
}

export function schemaRefsOf(endpoint: ApiEndpoint): string[] {
  const refs = [endpoint.requestBody, endpoint.query, ...Object.values(endpoint.responses)];
  return refs.filter((ref): ref is string => typeof ref === 'string');
}

export function checkManifest(raw: unknown, schemas: readonly SchemaFile[]): ApiManifest {
  const meta = schemas.find((file) => file.file === MANIFEST_SCHEMA_FILE);
  if (meta === undefined) throw new Error(`schema/${MANIFEST_SCHEMA_FILE} is missing`);
  const validate = createAjv(schemas, { allErrors: true, source: false }).getSchema(meta.id);
  if (validate === undefined) throw new Error(`schema/${MANIFEST_SCHEMA_FILE} did not compile`);
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`);
    throw new Error(`schema/api.json is not a valid manifest:\n  ${problems.join('\n  ')}`);
  }
  const manifest = raw as ApiManifest;
  const known = new Set(schemas.map((file) => file.file));
  const operationIds = new Set<string>();
  const routes = new Set<string>();
  const clientMethods = new Set<string>();
  for (const endpoint of manifest.endpoints) {
    const where = `schema/api.json ${endpoint.operationId}`;
    if (operationIds.has(endpoint.operationId)) throw new Error(`${where}: duplicate operationId`);
    operationIds.add(endpoint.operationId);
    const route = `${endpoint.method} ${endpoint.path}`;
    if (routes.has(route)) throw new Error(`${where}: ${route} is declared twice`);
    routes.add(route);
    for (const ref of schemaRefsOf(endpoint)) {
      if (!known.has(ref)) throw new Error(`${where}: no schema file schema/${ref}`);
    }
    const params = pathParams(endpoint.path);
    if (new Set(params).size !== params.length) throw new Error(`${where}: a path parameter repeats`);
    if (endpoint.catchAll === true && !endpoint.path.endsWith('}')) {
      throw new Error(`${where}: a catch-all route must end in a parameter`);
    }
    if (endpoint.client !== undefined) checkClientBinding(endpoint, endpoint.client, clientMethods, where);
  }
  return manifest;
}

/** A client method is unique, is not also a group, and its body and answer kinds agree with the schemas. */
function checkClientBinding(endpoint: ApiEndpoint, client: ClientBinding, methods: Set<string>, where: string): void {
  for (const other of methods) {
    if (other === client.method || other.startsWith(`${client.method}.`) || client.method.startsWith(`${other}.`)) {
      throw new Error(`${where}: client method ${client.method} clashes with ${other}`);
    }
  }
  methods.add(client.method);
  if (client.body === 'multipart' && endpoint.requestBody !== undefined) throw new Error(`${where}: a multipart client body has no JSON requestBody`);
  const returnsJson = (client.returns ?? 'json') === 'json';
  if (returnsJson !== (typeof endpoint.responses['200'] === 'string')) {
    throw new Error(`${where}: client returns ${client.returns ?? 'json'} but the 200 response ${returnsJson ? 'has no schema' : 'has a schema'}`);
  }
}
