// /v1/files of the vendor mock: multipart upload, list (cursor paging), retrieve, content, delete.
import type { MockContext } from './context.ts';
import { unixSeconds, vendorId } from './context.ts';
import { cursorPage, stateOf } from './jobs-state.ts';
import { boundaryOf, parseMultipart } from './multipart.ts';
import { badRequest, sendBody, sendJson, sendVendorError } from './respond.ts';

export async function createFile(ctx: MockContext): Promise<void> {
  const boundary = boundaryOf(ctx.req.headers['content-type']);
  const form = boundary === null ? null : parseMultipart(ctx.record.bodyBytes, boundary);
  if (form === null) return badRequest(ctx, 'The request must be multipart/form-data.');
  const purpose = form.fields.purpose;
  if (purpose === undefined) return badRequest(ctx, "Missing required parameter: 'purpose'.", 'purpose', 'missing_required_parameter');
  const file = form.files.file;
  if (file === undefined) return badRequest(ctx, "Missing required parameter: 'file'.", 'file', 'missing_required_parameter');
  const object = {
    id: vendorId('file-'), object: 'file' as const, bytes: file.data.length, created_at: unixSeconds(), filename: file.filename, purpose,
    status: 'processed' as const, status_details: null, expires_at: null,
  };
  stateOf(ctx).files.set(object.id, { object, content: file.data });
  await sendJson(ctx, 200, object);
}

export async function listFiles(ctx: MockContext): Promise<void> {
  const query = new URLSearchParams(ctx.record.query);
  const purpose = query.get('purpose');
  let files = [...stateOf(ctx).files.values()].map((f) => f.object).filter((f) => purpose === null || f.purpose === purpose);
  if (query.get('order') !== 'asc') files = files.reverse();
  const page = cursorPage(files, query, 10_000);
  if ('error' in page) return badRequest(ctx, page.error);
  await sendJson(ctx, 200, { object: 'list', data: page.data, has_more: page.has_more, first_id: page.data[0]?.id ?? null, last_id: page.data[page.data.length - 1]?.id ?? null });
}

export async function fileById(ctx: MockContext, id: string, sub: string | null): Promise<void> {
  const file = stateOf(ctx).files.get(id);
  if (file === undefined) return sendVendorError(ctx, 404, { message: `No such File object: ${id}`, param: 'id', code: null });
  if (sub === 'content' && ctx.record.method === 'GET') return sendBody(ctx, 200, 'application/octet-stream', file.content);
  if (sub !== null) return sendVendorError(ctx, 404, { message: `Invalid URL (${ctx.record.method} ${ctx.record.path})` });
  if (ctx.record.method === 'GET') return sendJson(ctx, 200, file.object);
  if (ctx.record.method === 'DELETE') {
    stateOf(ctx).files.delete(id);
    return sendJson(ctx, 200, { id, object: 'file', deleted: true });
  }
  return sendVendorError(ctx, 405, { message: `Invalid method for URL (${ctx.record.method} ${ctx.record.path})` });
}
