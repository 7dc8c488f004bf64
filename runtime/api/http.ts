// What every control-plane handler shares: the caller and its scope, path parameters, paging, and
// the list / deleted response envelopes.
import type { ApiKeyRecord } from '../store/api-key-store.ts';
import type { Page, PageRequest } from '../store/page.ts';
import type { RequestContext } from '../server/context.ts';
import { GatewayError } from '../core/errors.ts';
import { sendJson } from '../server/respond.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** The authenticated key (every control-plane route requires one). */
export function callerOf(ctx: RequestContext): ApiKeyRecord {
  if (ctx.apiKey === null) throw new GatewayError('missing_gateway_api_key');
  return ctx.apiKey;
}

/** The caller, when its key has the admin scope; 403 `forbidden` for inference keys. */
export function requireAdmin(ctx: RequestContext): ApiKeyRecord {
  const caller = callerOf(ctx);
  if (caller.scope !== 'admin') throw new GatewayError('forbidden', 'This endpoint needs an API key with the admin scope; this key has the inference scope.');
  return caller;
}

/** A path parameter, percent-decoded; a parameter that does not decode names nothing (404). */
export function pathParam(ctx: RequestContext, name: string): string {
  const raw = ctx.params[name];
  if (raw === undefined) throw new Error(`route ${ctx.route?.operationId} has no path parameter ${name}`);
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new GatewayError('resource_not_found', `No resource has the ID ${JSON.stringify(raw)}.`, name);
  }
}

/** `page_size` / `current_page` from a validated query; without page_size, every record. */
export function pageOf(query: Readonly<Record<string, unknown>>): PageRequest {
  const size = query.page_size;
  const page = query.current_page;
  if (typeof size !== 'number') return { limit: null, offset: 0 };
  return { limit: size, offset: size * (typeof page === 'number' ? page : 0) };
}

/**
 * One page of a list where file records (from a folder, shown first, by ID) and stored ones (the
 * store's page, files' IDs left out) share one numbering: configs and guardrails.
 */
export async function filesThenStored<F extends { id: string }, S>(files: readonly F[], page: PageRequest, stored: (page: PageRequest, options: { excludeIds: readonly string[] }) => Promise<Page<S>>): Promise<{ files: F[]; stored: S[]; total: number }> {
  const { limit, offset } = page;
  const fromFiles = limit === null ? files.slice(offset) : files.slice(offset, offset + limit);
  const rest = limit === null ? null : limit - fromFiles.length;
  const fromStore = await stored({ limit: rest, offset: Math.max(0, offset - files.length) }, { excludeIds: files.map((f) => f.id) });
  return { files: fromFiles, stored: fromStore.items, total: files.length + fromStore.total };
}

/** A workspace named in a body or query: UUIDs only, since this gateway has no directory of workspace slugs. */
export function workspaceIdOf(value: unknown, where: 'body' | 'query'): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && isUuid(value)) return value.toLowerCase();
  const message = `workspace_id must be a workspace UUID: this gateway keeps no workspace slugs, so ${JSON.stringify(value)} names no workspace.`;
  throw where === 'body' ? new GatewayError('invalid_request_body', message, '/workspace_id') : new GatewayError('invalid_query', message, 'workspace_id');
}

export function sendOk(ctx: RequestContext, body: unknown): void {
  sendJson(ctx.res, 200, body);
}

export function listBody<T>(data: T[], total: number): { object: 'list'; data: T[]; total: number } {
  return { object: 'list', data, total };
}

export function deletedBody(id: string, object: string): { id: string; object: string; deleted: true } {
  return { id, object, deleted: true };
}

export function notFound(kind: string, id: string, param: string): GatewayError {
  return new GatewayError('resource_not_found', `No ${kind} has the ID ${JSON.stringify(id)}.`, param);
}
