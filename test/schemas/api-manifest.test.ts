// The endpoint manifest covers SPEC §4 and what later work needs; the generated route table and
// OpenAPI document agree with it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fc, test as propTest } from '@fast-check/vitest';
import { describe, expect, test } from 'vitest';
import { checkManifest, schemaRefsOf, type ApiEndpoint } from '../../compiler/schemas/api-manifest.ts';
import { loadManifest, loadSchemaFiles, REPO_ROOT } from '../../compiler/schemas/schema-files.ts';
import { ROUTES, type RouteSpec } from '../../generated/routes.ts';
import * as validators from '../../generated/validators.js';

const schemas = await loadSchemaFiles();
const rawManifest = await loadManifest();
const manifest = checkManifest(rawManifest, schemas);
const openapi = JSON.parse(await readFile(join(REPO_ROOT, 'generated/openapi.json'), 'utf8')) as Record<string, unknown>;

function endpoint(method: string, path: string): ApiEndpoint | undefined {
  return manifest.endpoints.find((entry) => entry.method === method && entry.path === path);
}

// Straight from SPEC §4: method, path (with /v1), body schema, query schema, 200 schema.
const SPEC_ENDPOINTS: Array<[string, string, string | undefined, string | undefined, string | null]> = [
  ['POST', '/v1/{path}', undefined, undefined, null],
  ['GET', '/v1/{path}', undefined, undefined, null],
  ['PUT', '/v1/{path}', undefined, undefined, null],
  ['DELETE', '/v1/{path}', undefined, undefined, null],
  ['POST', '/v1/prompts/{promptId}/render', 'requests/prompt-render.json', 'requests/no-query.json', 'resources/rendered-prompt.json'],
  ['POST', '/v1/fine_tuning/jobs', 'requests/fine-tuning-job-create.json', undefined, 'resources/fine-tuning-job.json'],
  ['GET', '/v1/fine_tuning/jobs', undefined, 'requests/fine-tuning-job-list-query.json', 'resources/fine-tuning-job-list.json'],
  ['POST', '/v1/fine_tuning/jobs/{fine_tuning_job_id}/cancel', undefined, undefined, 'resources/fine-tuning-job.json'],
  ['GET', '/v1/fine_tuning/jobs/{fine_tuning_job_id}/checkpoints', undefined, 'requests/fine-tuning-checkpoint-list-query.json', 'resources/fine-tuning-checkpoint-list.json'],
  ['POST', '/v1/batches', 'requests/batch-create.json', undefined, 'resources/batch.json'],
  ['POST', '/v1/batches/{batch_id}/cancel', undefined, undefined, 'resources/batch.json'],
  ['POST', '/v1/completions', 'requests/completion-create.json', undefined, 'resources/text-completion.json'],
  ['GET', '/v1/responses/{response_id}', undefined, 'requests/response-get-query.json', 'resources/stored-response.json'],
  ['POST', '/v1/policies/usage-limits', 'requests/usage-limits-policy-create.json', 'requests/no-query.json', 'resources/usage-limits-policy-created.json'],
  ['GET', '/v1/policies/rate-limits/{rateLimitsPolicyId}', undefined, 'requests/rate-limits-policy-get-query.json', 'resources/rate-limits-policy.json'],
  ['GET', '/v1/policies/rate-limits', undefined, 'requests/rate-limits-policy-list-query.json', 'resources/rate-limits-policy-list.json'],
];

// Endpoints later work needs, with their handler.
const EXTRA_ENDPOINTS: Array<[string, string, string]> = [
  ['GET', '/v1/health', 'health.get'],
  ['POST', '/v1/chat/completions', 'inference.chat'],
  ['POST', '/v1/embeddings', 'inference.embeddings'],
  ['POST', '/v1/audio/speech', 'inference.audio'],
  ['POST', '/v1/audio/transcriptions', 'inference.audio'],
  ['POST', '/v1/audio/translations', 'inference.audio'],
  ['POST', '/v1/images/generations', 'inference.images'],
  ['POST', '/v1/images/edits', 'inference.images'],
  ['POST', '/v1/images/variations', 'inference.images'],
  ['GET', '/v1/models', 'inference.models'],
  ['GET', '/v1/fine_tuning/jobs/{fine_tuning_job_id}', 'fineTuning.retrieve'],
  ['GET', '/v1/batches/{batch_id}', 'batches.retrieve'],
  ['GET', '/v1/batches', 'batches.list'],
];

describe('schema/api.json', () => {
  test('is valid against its meta-schema through the generated validator', () => {
    expect(validators.validateApiManifest(rawManifest)).toBe(true);
  });

  test.each(SPEC_ENDPOINTS)('SPEC §4: %s %s', (method, path, body, query, ok) => {
    const entry = endpoint(method, path);
    expect(entry, `${method} ${path} is missing`).toBeDefined();
    expect(entry?.requestBody).toBe(body);
    expect(entry?.query).toBe(query);
    expect(entry?.responses['200']).toBe(ok);
    expect(entry?.responses.default).toBe('resources/error.json');
    expect(entry?.auth).toBe('api_key');
    if (body !== undefined) expect(entry?.validateBody).toBe('always');
  });

  test.each(EXTRA_ENDPOINTS)('also %s %s', (method, path, handler) => {
    expect(endpoint(method, path)?.handler).toBe(handler);
  });

  test('catch-all, completions and data-plane bodies use the agreed handlers and validation modes', () => {
    for (const method of ['POST', 'GET', 'PUT', 'DELETE']) expect(endpoint(method, '/v1/{path}')?.handler).toBe('inference.passthrough');
    expect(endpoint('POST', '/v1/completions')?.handler).toBe('inference.completions');
    expect(endpoint('POST', '/v1/chat/completions')?.validateBody).toBe('when-read');
    expect(endpoint('POST', '/v1/embeddings')?.validateBody).toBe('when-read');
    expect(endpoint('GET', '/v1/health')?.auth).toBe('none');
    expect(endpoint('GET', '/metrics')?.auth).toBe('none');
    for (const entry of manifest.endpoints) {
      if (entry.plane === 'data') expect(entry.handler).toMatch(/^(inference|health|metrics)\./);
      if (entry.plane === 'control' && entry.requestBody !== undefined) expect(entry.validateBody).toBe('always');
    }
  });

  test('every referenced schema exists', () => {
    const known = new Set(schemas.map((file) => file.file));
    for (const entry of manifest.endpoints) for (const ref of schemaRefsOf(entry)) expect(known.has(ref), ref).toBe(true);
  });

  test('the checker rejects a manifest naming a schema that does not exist', () => {
    const broken = structuredClone(rawManifest) as { endpoints: ApiEndpoint[] };
    broken.endpoints[0].responses['200'] = 'resources/nope.json';
    expect(() => checkManifest(broken, schemas)).toThrow(/no schema file/);
  });

  test('the checker rejects duplicate routes', () => {
    const broken = structuredClone(rawManifest) as { endpoints: ApiEndpoint[] };
    broken.endpoints.push({ ...broken.endpoints[0], operationId: 'anotherHealth' });
    expect(() => checkManifest(broken, schemas)).toThrow(/declared twice/);
  });
});

describe('generated/routes.ts', () => {
  test('holds every manifest endpoint once, catch-all routes last', () => {
    expect(ROUTES.map((route) => route.operationId).sort()).toEqual(manifest.endpoints.map((entry) => entry.operationId).sort());
    const firstCatchAll = ROUTES.findIndex((route) => route.handler === 'inference.passthrough');
    expect(ROUTES.slice(firstCatchAll).every((route) => route.handler === 'inference.passthrough')).toBe(true);
    expect(ROUTES.slice(firstCatchAll).map((route) => route.method).sort()).toEqual(['DELETE', 'GET', 'POST', 'PUT']);
  });

  test('names only validators that generated/validators.js exports', () => {
    const exported = new Set(Object.keys(validators));
    for (const route of ROUTES) {
      if (route.bodyValidator !== undefined) expect(exported.has(route.bodyValidator), route.bodyValidator).toBe(true);
      if (route.queryValidator !== undefined) expect(exported.has(route.queryValidator), route.queryValidator).toBe(true);
      expect(route.validateBody === 'never').toBe(route.bodyValidator === undefined);
    }
  });

  const specific = ROUTES.filter((route) => route.handler !== 'inference.passthrough');
  // Path parameter values: anything a client can put in one segment, including regex metacharacters.
  const segment = fc.string({ unit: fc.oneof(fc.constantFrom('.', '*', '(', ')', '$', '^', '%2F', '-', '_', '~'), fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' })), minLength: 1, maxLength: 12 })
    .filter((value) => !value.includes('/') && !value.includes('?'));

  function firstMatch(method: string, path: string): { route: RouteSpec; groups: Record<string, string> } | null {
    for (const route of ROUTES) {
      if (route.method !== method) continue;
      const match = new RegExp(route.pattern).exec(path);
      if (match !== null) return { route, groups: { ...match.groups } };
    }
    return null;
  }

  propTest.prop([fc.constantFrom(...specific), fc.array(segment, { minLength: 3, maxLength: 3 })], { numRuns: 400 })(
    'a path built from a template is matched by that route first, with its parameters captured',
    (route, values) => {
      const params: Record<string, string> = {};
      route.params.forEach((name, index) => (params[name] = values[index]));
      const path = route.path.replace(/\{([^}]+)\}/g, (_whole, name: string) => params[name]);
      const found = firstMatch(route.method, path);
      expect(found?.route.operationId).toBe(route.operationId);
      expect(found?.groups).toEqual(params);
      // No other specific template claims the same path, for any method.
      for (const other of specific) {
        if (other.path !== route.path) expect(new RegExp(other.pattern).test(path), `${other.path} also matches ${path}`).toBe(false);
      }
    },
  );

  propTest.prop([fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), fc.array(segment, { minLength: 1, maxLength: 5 })], { numRuns: 300 })(
    'any other /v1 path falls through to the catch-all, which captures the whole rest',
    (method, segments) => {
      const path = `/v1/${segments.join('/')}`;
      const found = firstMatch(method, path);
      expect(found).not.toBeNull();
      if (found?.route.handler === 'inference.passthrough') expect(found.groups).toEqual({ path: segments.join('/') });
      else expect(specific.some((route) => route.method === method && new RegExp(route.pattern).test(path))).toBe(true);
    },
  );

  test('paths outside /v1 and bare /v1 match nothing', () => {
    for (const path of ['/', '/v1', '/v1/', '/v2/chat/completions', '/health']) {
      for (const method of ['GET', 'POST']) expect(firstMatch(method, path), path).toBeNull();
    }
  });
});

describe('generated/openapi.json', () => {
  function pointerTargets(node: unknown, found: string[] = []): string[] {
    if (Array.isArray(node)) for (const item of node) pointerTargets(item, found);
    else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') found.push(value);
        else pointerTargets(value, found);
      }
    }
    return found;
  }

  test('is OpenAPI 3.1 with the api-key header scheme and one operation per endpoint', () => {
    expect(openapi.openapi).toBe('3.1.0');
    const components = openapi.components as { securitySchemes: Record<string, { in: string; name: string }> };
    expect(Object.values(components.securitySchemes)).toContainEqual(expect.objectContaining({ in: 'header', name: 'x-gateway-api-key' }));
    const paths = openapi.paths as Record<string, Record<string, { operationId: string; security?: unknown[] }>>;
    for (const entry of manifest.endpoints) {
      const operation = paths[entry.path]?.[entry.method.toLowerCase()];
      expect(operation?.operationId).toBe(entry.operationId);
      if (entry.auth === 'none') expect(operation?.security).toEqual([]);
    }
  });

  test('every $ref is a local pointer that resolves, and no $data is left', () => {
    const text = JSON.stringify(openapi);
    expect(text.includes('"$data"')).toBe(false);
    expect(text.includes('"$id"')).toBe(false);
    for (const ref of pointerTargets(openapi)) {
      expect(ref.startsWith('#/')).toBe(true);
      let node: unknown = openapi;
      for (const token of ref.slice(2).split('/')) node = (node as Record<string, unknown> | undefined)?.[token.replaceAll('~1', '/').replaceAll('~0', '~')];
      expect(node, ref).toBeDefined();
    }
  });
});
