// The contract check (issue 5, point 6): every response a test receives from the gateway is validated
// against the response schema schema/api.json names for its route and status (`default` for errors),
// through the generated validators. Pass-through responses (schema null) are the provider's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pascalCase, REPO_ROOT } from '../../compiler/schemas/schema-files.ts';
import { ROUTES } from '../../generated/routes.ts';
import * as validators from '../../generated/validators.js';
import { RouteTable } from '../../runtime/server/match.ts';
import { describeFirstError, type GeneratedValidator } from '../../runtime/core/validate.ts';

interface ManifestEndpoint {
  operationId: string;
  responses: Record<string, string | null>;
}

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'schema/api.json'), 'utf8')) as { endpoints: ManifestEndpoint[] };
const byOperation = new Map(manifest.endpoints.map((e) => [e.operationId, e]));
const table = new RouteTable(ROUTES);

export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
}

/** The response schema file for a request and status, or null when the body is the provider's. */
export function responseSchemaFor(method: string, path: string, status: number): { operationId: string; schema: string | null } {
  const found = table.match(method, path.split('?')[0]);
  if (found.kind !== 'found') return { operationId: '(no route)', schema: 'resources/error.json' };
  const endpoint = byOperation.get(found.route.operationId);
  if (endpoint === undefined) throw new ContractViolation(`route ${found.route.operationId} is not in schema/api.json`);
  // `null` (the provider's own body) is an answer too, so look the status up with `in`, not `??`.
  const schema = String(status) in endpoint.responses ? endpoint.responses[String(status)] : endpoint.responses.default;
  if (schema === undefined) throw new ContractViolation(`${found.route.operationId} declares no response for ${status} and no default`);
  return { operationId: found.route.operationId, schema };
}

/** Throws ContractViolation when `body` does not match the declared schema; returns the schema checked. */
export function checkResponse(method: string, path: string, status: number, body: unknown): string | null {
  const { operationId, schema } = responseSchemaFor(method, path, status);
  if (schema === null) return null;
  const name = `validate${pascalCase(schema.slice(schema.lastIndexOf('/') + 1, -'.json'.length))}`;
  const validate = (validators as unknown as Record<string, GeneratedValidator>)[name];
  if (validate === undefined) throw new ContractViolation(`generated/validators.js has no ${name}`);
  if (!validate(body)) {
    const { pointer, message } = describeFirstError(validate.errors);
    throw new ContractViolation(`${method} ${path} → ${status} (${operationId}) breaks ${schema} at ${pointer || '/'}: ${message}\n${JSON.stringify(body).slice(0, 2000)}`);
  }
  return schema;
}
