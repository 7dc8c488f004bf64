// generated/routes.ts: the route table the server loads, derived from schema/api.json.
import type { ApiEndpoint, ApiManifest } from './api-manifest.ts';
import { pathParams } from './api-manifest.ts';
import { GENERATED_HEADER, type Artifact } from './artifact.ts';
import type { SchemaFile } from './schema-files.ts';

const REGEXP_SPECIAL = /[\\^$.*+?()[\]{}|]/g;

/** Anchored RegExp source for an OpenAPI template; parameters become named groups. */
export function routePattern(template: string, catchAll: boolean): string {
  const params = pathParams(template);
  const lastParam = params.length > 0 ? params[params.length - 1] : null;
  const source = template
    .split(/(\{[^}]+\})/)
    .map((piece) => {
      const param = /^\{([^}]+)\}$/.exec(piece);
      if (param === null) return piece.replace(REGEXP_SPECIAL, '\\$&');
      // A catch-all's last parameter spans segments; every other parameter is one non-empty segment.
      return catchAll && param[1] === lastParam ? `(?<${param[1]}>[^]+)` : `(?<${param[1]}>[^/]+)`;
    })
    .join('');
  return `^${source}$`;
}

function exportNameOf(ref: string, schemas: readonly SchemaFile[]): string {
  const file = schemas.find((schema) => schema.file === ref);
  if (file === undefined) throw new Error(`no schema file schema/${ref}`);
  return file.exportName;
}

/**
 * Whether the endpoint reads a request body: a JSON body schema, a body the client sends (multipart
 * uploads, virtual keys), or an inference or pass-through route (the body goes to the provider).
 * Any other endpoint would drop a body unread, so the server refuses one there.
 */
export function takesBody(endpoint: ApiEndpoint): boolean {
  return endpoint.requestBody !== undefined || endpoint.client?.body !== undefined || endpoint.handler.startsWith('inference.');
}

function routeSpecOf(endpoint: ApiEndpoint, schemas: readonly SchemaFile[]): Record<string, unknown> {
  return {
    operationId: endpoint.operationId,
    method: endpoint.method,
    path: endpoint.path,
    auth: endpoint.auth,
    plane: endpoint.plane,
    handler: endpoint.handler,
    validateBody: endpoint.validateBody,
    ...(endpoint.requestBody === undefined ? {} : { bodyValidator: exportNameOf(endpoint.requestBody, schemas) }),
    ...(endpoint.query === undefined ? {} : { queryValidator: exportNameOf(endpoint.query, schemas) }),
    ...(takesBody(endpoint) ? {} : { noBody: true }),
    pattern: routePattern(endpoint.path, endpoint.catchAll === true),
    params: pathParams(endpoint.path),
  };
}

/** Catch-all routes go last; the rest keep manifest order (they cannot overlap, which a test checks). */
export function orderedEndpoints(manifest: ApiManifest): ApiEndpoint[] {
  const specific = manifest.endpoints.filter((endpoint) => endpoint.catchAll !== true);
  const catchAll = manifest.endpoints.filter((endpoint) => endpoint.catchAll === true);
  return [...specific, ...catchAll];
}

function unionOf(values: readonly string[]): string {
  return [...new Set(values)].map((value) => JSON.stringify(value)).join(' | ');
}

export function routesArtifact(manifest: ApiManifest, schemas: readonly SchemaFile[]): Artifact {
  const endpoints = orderedEndpoints(manifest);
  const routes = endpoints.map((endpoint) => `  ${JSON.stringify(routeSpecOf(endpoint, schemas))},`);
  const contents = [
    GENERATED_HEADER,
    '',
    `export type RouteHandlerName = ${unionOf(endpoints.map((endpoint) => endpoint.handler).sort())};`,
    '',
    `export type RouteOperationId = ${unionOf(endpoints.map((endpoint) => endpoint.operationId))};`,
    '',
    'export interface RouteSpec {',
    '  readonly operationId: RouteOperationId;',
    "  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';",
    '  /** OpenAPI template, relative to the server root. */',
    '  readonly path: string;',
    "  readonly auth: 'none' | 'api_key';",
    "  readonly plane: 'data' | 'control';",
    '  readonly handler: RouteHandlerName;',
    '  /** `always`: parse and check every body; `when-read`: check only when the router parses it anyway; `never`: no body schema. */',
    "  readonly validateBody: 'always' | 'when-read' | 'never';",
    '  /** Export name in generated/validators.js. */',
    '  readonly bodyValidator?: string;',
    '  /** Export name in generated/validators.js; numeric query strings are coerced to numbers before it runs. */',
    '  readonly queryValidator?: string;',
    '  /** The endpoint reads no request body: one is refused (400), not dropped. */',
    '  readonly noBody?: true;',
    '  /** Anchored RegExp source matched against the URL path without its query string; named groups are the path parameters. */',
    '  readonly pattern: string;',
    '  /** Path parameter names in template order. */',
    '  readonly params: readonly string[];',
    '}',
    '',
    '/** In match order: the first route whose method and pattern match wins; catch-all routes come last. */',
    'export const ROUTES: readonly RouteSpec[] = [',
    ...routes,
    '];',
    '',
  ];
  return { path: 'generated/routes.ts', contents: contents.join('\n') };
}
