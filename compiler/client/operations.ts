// The generated client's operations, read from schema/api.json: every endpoint with a `client` binding
// becomes one method, with its path parameters, body, query and answer types named after the schemas'
// types (generated/types.ts), and its paging read from the query schema.
import type { ApiEndpoint, ApiManifest } from '../schemas/api-manifest.ts';
import { pathParams } from '../schemas/api-manifest.ts';
import type { SchemaFile } from '../schemas/schema-files.ts';

export interface ClientOperation {
  operationId: string;
  summary: string;
  /** Groups, outermost first: `['policies', 'rateLimits']`. */
  groups: string[];
  name: string;
  method: ApiEndpoint['method'];
  path: string;
  pathParams: string[];
  /** Type name of the JSON body (`Record<string, unknown>` when it has no schema), `FormData` for multipart, or null when the call sends none. */
  body: string | null;
  bodyKind: 'json' | 'multipart' | null;
  query: string | null;
  returns: 'json' | 'text' | 'bytes';
  /** Type of the answer: a schema type, `string` or `Uint8Array`. */
  answer: string;
  /** The schema types (generated/types.ts) among body, query and answer: what client.ts imports for it. */
  schemaTypes: string[];
  /** Export of the answer's validator in the client's validators.js (JSON answers only). */
  validator: string | null;
  /** Export of the validator of the operation's error body (the `default` response). */
  errorValidator: string | null;
  /** Cursor lists take `after`; page lists take `page_size`/`current_page` and answer `total`. */
  paging: 'cursor' | 'page' | null;
}

export function clientOperations(manifest: ApiManifest, schemas: readonly SchemaFile[]): ClientOperation[] {
  const byFile = new Map(schemas.map((file) => [file.file, file]));
  const schemaOf = (ref: string): SchemaFile => {
    const file = byFile.get(ref);
    if (file === undefined) throw new Error(`no schema file schema/${ref}`);
    return file;
  };
  return manifest.endpoints.flatMap((endpoint): ClientOperation[] => {
    const binding = endpoint.client;
    if (binding === undefined) return [];
    const parts = binding.method.split('.');
    const returns = binding.returns ?? 'json';
    const answerRef = endpoint.responses['200'];
    const answer = returns === 'json' ? schemaOf(answerRef!) : null;
    const bodyKind = binding.body === 'multipart' ? 'multipart' : endpoint.requestBody !== undefined || binding.body === 'json' ? 'json' : null;
    const querySchema = endpoint.query === undefined ? null : schemaOf(endpoint.query);
    const body = endpoint.requestBody === undefined ? null : schemaOf(endpoint.requestBody);
    const queryKeys = Object.keys((querySchema?.schema.properties as Record<string, unknown> | undefined) ?? {});
    // A schema that allows no parameter (requests/no-query.json) is the server refusing any: no argument.
    const query = queryKeys.length === 0 ? null : querySchema;
    return [{
      operationId: endpoint.operationId,
      summary: endpoint.summary ?? endpoint.operationId,
      groups: parts.slice(0, -1),
      name: parts[parts.length - 1],
      method: endpoint.method,
      path: endpoint.path,
      pathParams: pathParams(endpoint.path),
      // A JSON body without a schema (virtual keys: their fields are the provider's options) is an open object.
      body: bodyKind === 'multipart' ? 'FormData' : body !== null ? body.typeName : bodyKind === 'json' ? 'Record<string, unknown>' : null,
      bodyKind,
      query: query?.typeName ?? null,
      returns,
      answer: answer?.typeName ?? (returns === 'text' ? 'string' : 'Uint8Array'),
      schemaTypes: [body, query, answer].filter((file): file is SchemaFile => file !== null).map((file) => file.typeName),
      validator: answer?.exportName ?? null,
      errorValidator: typeof endpoint.responses.default === 'string' ? schemaOf(endpoint.responses.default).exportName : null,
      paging: queryKeys.includes('after') ? 'cursor' : queryKeys.includes('current_page') ? 'page' : null,
    }];
  });
}
