// /v1/files: multipart uploads with purpose `batch` (every line checked as a batch request) or
// `fine-tune` (every line a JSON object), forwarded to the routed provider when every target it may
// pick has a files API, kept in the gateway's store otherwise. Lists show the gateway's files first,
// then the provider's; a file ID is looked up in the gateway first, then at the provider.
import type { File as FileWire, FileDeleted, FileList } from '../../../generated/types.ts';
import type { JobDeps } from '../../jobs/deps.ts';
import { FORM_OVERHEAD } from '../../jobs/settings.ts';
import { forward, forwardable, isSuccess, queryWith, readAnswer, relay, routerOf, sendAnswer } from '../../jobs/forward.ts';
import { parseBatchFile } from '../../jobs/batch-lines.ts';
import type { RequestContext } from '../../server/context.ts';
import { ClientAbortedError } from '../../server/body.ts';
import { GatewayError } from '../../core/errors.ts';
import type { Handler } from '../../server/server.ts';
import type { GatewayFilePurpose, GatewayFileRecord } from '../../store/file-store.ts';
import { callerOf, notFound, pathParam, sendOk } from '../http.ts';
import { boundaryOf, DEFAULT_MULTIPART_LIMITS, FilePartTooLarge, type FormPart, MultipartError, MultipartReader } from '../../core/multipart.ts';
import { jsonErrorDetail } from '../../../compiler/config/json-syntax-error.ts';
import { didYouMean } from '../../../compiler/config/suggest.ts';
import { TimeSlice } from '../../core/time-slice.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';
import { attachmentDisposition } from './content-disposition.ts';
import { keepFile } from './storage-full.ts';

const UPLOAD_PURPOSES: readonly string[] = ['batch', 'fine-tune'];
const DEFAULT_FILE_LIMIT = 10_000;

export function fileHandlers(deps: JobDeps): Record<string, Handler> {
  const { store } = deps;

  /** The caller's file by path ID; null when the gateway does not keep it. */
  async function ownFile(ctx: RequestContext): Promise<GatewayFileRecord | null> {
    return store.files.get(callerOf(ctx).organisationId, pathParam(ctx, 'file_id'));
  }

  /** A file request the gateway cannot answer itself: the provider's, when the route has a files API. */
  async function toProvider(ctx: RequestContext, method: 'GET' | 'DELETE', suffix: string): Promise<void> {
    const id = pathParam(ctx, 'file_id');
    const router = routerOf(ctx, deps);
    if (!forwardable(router, ctx, deps, 'files')) throw notFound('file', id, 'file_id');
    await relay(ctx, await forward(deps, router, ctx, { method, upstreamPath: `/files/${encodeURIComponent(id)}${suffix}${ctx.rawQuery === '' ? '' : `?${ctx.rawQuery}`}` }));
  }

  return {
    'files.create': async (ctx) => {
      const caller = callerOf(ctx);
      const boundary = boundaryOf(ctx.headers['content-type']);
      if (boundary === null) throw new GatewayError('invalid_request_body', 'Upload a file as multipart/form-data with the fields `file` and `purpose`.', 'content-type');
      const limit = deps.settings.fileMaxBytes;
      const declared = Number(ctx.headers['content-length']);
      if (Number.isFinite(declared) && declared > limit + FORM_OVERHEAD) throw fileTooLarge(limit);
      const router = routerOf(ctx, deps);
      const toProviderRoute = forwardable(router, ctx, deps, 'files') ? router : null;
      const upload = await readUpload(ctx, boundary, limit, toProviderRoute !== null);
      const { purpose, file } = checkForm(upload.parts);
      await checkContent(purpose, file.data);
      if (toProviderRoute !== null) {
        await relay(ctx, await forward(deps, toProviderRoute, ctx, { method: 'POST', upstreamPath: '/files', body: upload.raw, opaqueBody: true }));
        return;
      }
      refuseUnreadFields(upload.parts);
      const input = { organisationId: caller.organisationId, purpose: purpose as GatewayFilePurpose, filename: file.filename!, content: file.data };
      const record = await keepFile(store.files, input, deps.settings.fileStorageMaxBytes, 'this one', 'file');
      sendOk(ctx, fileWire(record));
    },

    'files.list': async (ctx) => {
      const caller = callerOf(ctx);
      const query = ctx.query as { after?: string; limit?: number; order?: 'asc' | 'desc'; purpose?: string };
      const limit = query.limit ?? DEFAULT_FILE_LIMIT;
      const local = await store.files.list(caller.organisationId, { after: query.after, limit, order: query.order ?? 'desc', purpose: query.purpose });
      const data = local.items.map(fileWire);
      const router = routerOf(ctx, deps);
      // The gateway's files come first; past them (or after a provider file's ID) the provider's list continues.
      if (!forwardable(router, ctx, deps, 'files') || local.hasMore) {
        sendOk(ctx, listPage(data, local.hasMore));
        return;
      }
      if (data.length === limit) {
        sendOk(ctx, listPage(data, true));
        return;
      }
      const upstreamQuery = queryWith(ctx.rawQuery, { limit: String(limit - data.length), after: local.afterFound ? null : query.after ?? null });
      const answer = await readAnswer(ctx, await forward(deps, router, ctx, { method: 'GET', upstreamPath: `/files${upstreamQuery}` }));
      if (answer === null) return;
      const theirs = answer.json as { data?: unknown; has_more?: unknown } | undefined;
      if (!isSuccess(answer.status) || !Array.isArray(theirs?.data)) {
        sendAnswer(ctx, answer);
        return;
      }
      sendOk(ctx, listPage([...data, ...(theirs.data as FileWire[])], theirs.has_more === true));
    },

    'files.retrieve': async (ctx) => {
      const record = await ownFile(ctx);
      if (record === null) return toProvider(ctx, 'GET', '');
      sendOk(ctx, fileWire(record));
    },

    'files.content': async (ctx) => {
      const record = await ownFile(ctx);
      if (record === null) return toProvider(ctx, 'GET', '/content');
      const content = await store.files.content(record.organisationId, record.id);
      if (content === null) throw notFound('file', record.id, 'file_id');
      ctx.res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(content.length), 'content-disposition': attachmentDisposition(record.filename) });
      ctx.res.end(content);
    },

    'files.delete': async (ctx) => {
      const caller = callerOf(ctx);
      const id = pathParam(ctx, 'file_id');
      if (!(await store.files.delete(caller.organisationId, id))) return toProvider(ctx, 'DELETE', '');
      sendOk(ctx, { id, object: 'file', deleted: true } satisfies FileDeleted);
    },
  };
}

export function fileWire(record: GatewayFileRecord): FileWire {
  return {
    id: record.id,
    object: 'file',
    bytes: record.bytes,
    created_at: record.createdAt,
    filename: record.filename,
    purpose: record.purpose,
    status: 'processed',
    status_details: null,
    expires_at: null,
  };
}

function listPage(data: FileWire[], hasMore: boolean): FileList {
  return { object: 'list', data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null };
}

function fileTooLarge(limit: number): GatewayError {
  return new GatewayError('file_too_large', `The file is larger than the gateway accepts for uploads (${limit} bytes).`, 'file');
}

/** Reads the multipart body as it arrives, refusing it as soon as the file passes the limit. */
async function readUpload(ctx: RequestContext, boundary: string, limit: number, keepRaw: boolean): Promise<{ parts: FormPart[]; raw: Buffer | null }> {
  const reader = new MultipartReader(boundary, { ...DEFAULT_MULTIPART_LIMITS, maxFileBytes: limit });
  const raw: Buffer[] = [];
  let received = 0;
  try {
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > limit + FORM_OVERHEAD) throw fileTooLarge(limit);
      if (keepRaw) raw.push(chunk);
      reader.push(chunk);
    }
  } catch (error) {
    if (error instanceof FilePartTooLarge) throw fileTooLarge(limit);
    if (error instanceof MultipartError) throw new GatewayError('invalid_request_body', `The upload is not valid multipart/form-data: ${error.message}`);
    if (error instanceof GatewayError) throw error;
    throw new ClientAbortedError('the client closed the connection during the upload');
  }
  try {
    return { parts: reader.end(), raw: keepRaw ? Buffer.concat(raw, received) : null };
  } catch (error) {
    throw new GatewayError('invalid_request_body', `The upload is not valid multipart/form-data: ${(error as Error).message}`);
  }
}

function checkForm(parts: FormPart[]): { purpose: string; file: FormPart } {
  const purposePart = parts.find((p) => p.name === 'purpose' && p.filename === null);
  const purpose = purposePart?.data.toString('utf8').trim();
  if (purpose === undefined) throw new GatewayError('invalid_request_body', 'The form field `purpose` is required.', 'purpose');
  if (!UPLOAD_PURPOSES.includes(purpose)) {
    throw new GatewayError('invalid_request_body', `purpose must be one of ${UPLOAD_PURPOSES.map((p) => JSON.stringify(p)).join(', ')}, not ${JSON.stringify(purpose.slice(0, 64))}.`, 'purpose');
  }
  const file = parts.find((p) => p.name === 'file' && p.filename !== null);
  if (file === undefined) throw new GatewayError('invalid_request_body', 'The form needs a `file` part with a filename.', 'file');
  if (file.filename === '') throw new GatewayError('invalid_request_body', 'The uploaded file needs a filename.', 'file');
  return { purpose, file };
}

/** The form fields a file the gateway keeps is made of. */
const KEPT_FILE_FIELDS = ['file', 'purpose'];

/**
 * A file the gateway keeps is its `file` and `purpose`; any other field (the vendor's `expires_after`,
 * a misspelt name, a second file) would be accepted and unused. A provider's Files API reads its own,
 * so a forwarded upload is left as it is.
 */
function refuseUnreadFields(parts: readonly FormPart[]): void {
  const seen = new Set<string>();
  for (const part of parts) {
    if (seen.has(part.name)) throw new GatewayError('invalid_request_body', `The form has the field \`${part.name}\` twice; the gateway reads one.`, part.name);
    seen.add(part.name);
    if (KEPT_FILE_FIELDS.includes(part.name)) continue;
    if (part.name.startsWith('expires_after')) {
      throw new GatewayError('unsupported_parameter', 'expires_after: files the gateway keeps itself do not expire (delete them with DELETE /v1/files/{file_id}); a route whose provider has a Files API forwards the upload, expiry included.', part.name);
    }
    const hint = didYouMean(part.name, KEPT_FILE_FIELDS);
    throw new GatewayError('invalid_request_body', `The form field \`${part.name}\` is not read: a file the gateway keeps is its \`file\` and \`purpose\`${hint === undefined ? '' : ` (${hint})`}.`, part.name);
  }
}

/** Batch files: every line a batch request; fine-tune files: every line a JSON object. */
async function checkContent(purpose: string, data: Buffer): Promise<void> {
  if (purpose === 'batch') {
    const first = (await parseBatchFile(data, null)).errors[0];
    if (first !== undefined) throw new GatewayError('invalid_file', first.message, 'file', { line: first.line, reason: first.code });
    return;
  }
  const first = await firstBadJsonLine(data);
  if (first !== null) throw new GatewayError('invalid_file', first.message, 'file', { line: first.line, reason: 'invalid_json' });
}

/** The first line of a JSONL file that is not a JSON object; blank lines are skipped. */
async function firstBadJsonLine(data: Buffer): Promise<{ line: number | null; message: string } | null> {
  const text = data.toString('utf8');
  const slice = new TimeSlice();
  let lineNumber = 0;
  let lines = 0;
  for (const line of text.split('\n')) {
    await slice.pause();
    lineNumber++;
    if (line.trim() === '') continue;
    lines++;
    let value: unknown;
    try {
      value = parseJson(line);
    } catch {
      return { line: lineNumber, message: `Line ${lineNumber} is not valid JSON${jsonErrorDetail(line)}.` };
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { line: lineNumber, message: `Line ${lineNumber} must be a JSON object.` };
  }
  return lines === 0 ? { line: null, message: 'The file holds no lines.' } : null;
}
