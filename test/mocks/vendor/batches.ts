// /v1/batches of the vendor mock. A batch moves on one status each time it is read (validating →
// in_progress → finalizing → completed), so a test drives it by polling; when it completes, its
// output file holds one chat completion per input line. Cancel: cancelling, then cancelled.
import type { MockContext } from './context.ts';
import { jsonObject, unixSeconds, vendorId } from './context.ts';
import { cursorPage, type MockBatch, stateOf } from './jobs-state.ts';
import { badRequest, sendJson, sendVendorError } from './respond.ts';

export async function createBatch(ctx: MockContext): Promise<void> {
  const body = jsonObject(ctx);
  if (body === null) return badRequest(ctx, 'We could not parse the JSON body of your request.');
  const inputFileId = body.input_file_id;
  if (typeof inputFileId !== 'string' || !stateOf(ctx).files.has(inputFileId)) return badRequest(ctx, `Invalid 'input_file_id': '${String(inputFileId)}'.`, 'input_file_id', 'invalid_file');
  if (body.completion_window !== '24h') return badRequest(ctx, "Invalid 'completion_window': only '24h' is supported.", 'completion_window');
  const created = unixSeconds();
  const record: MockBatch['record'] = {
    id: vendorId('batch_'), object: 'batch', endpoint: String(body.endpoint), errors: null, input_file_id: inputFileId, completion_window: '24h',
    status: 'validating', output_file_id: null, error_file_id: null, created_at: created, in_progress_at: null, expires_at: created + 86_400,
    finalizing_at: null, completed_at: null, failed_at: null, expired_at: null, cancelling_at: null, cancelled_at: null,
    request_counts: { total: 0, completed: 0, failed: 0 }, metadata: (body.metadata as Record<string, string> | null | undefined) ?? null,
  };
  stateOf(ctx).batches.set(record.id, { record });
  await sendJson(ctx, 200, record);
}

export async function listBatches(ctx: MockContext): Promise<void> {
  const batches = [...stateOf(ctx).batches.values()].map((b) => b.record).reverse();
  const page = cursorPage(batches, new URLSearchParams(ctx.record.query), 20);
  if ('error' in page) return badRequest(ctx, page.error);
  await sendJson(ctx, 200, { object: 'list', data: page.data, has_more: page.has_more, first_id: page.data[0]?.id ?? null, last_id: page.data[page.data.length - 1]?.id ?? null });
}

export async function batchById(ctx: MockContext, id: string, sub: string | null): Promise<void> {
  const batch = stateOf(ctx).batches.get(id);
  if (batch === undefined) return sendVendorError(ctx, 404, { message: `No batch found with id '${id}'.`, param: null, code: null });
  const { method } = ctx.record;
  if (sub === 'cancel' && method === 'POST') {
    const status = batch.record.status;
    if (status !== 'validating' && status !== 'in_progress' && status !== 'cancelling') {
      return sendVendorError(ctx, 409, { message: `Cannot cancel a batch with status '${status}'.` });
    }
    batch.record.status = 'cancelling';
    batch.record.cancelling_at ??= unixSeconds();
    return sendJson(ctx, 200, batch.record);
  }
  if (sub === null && method === 'GET') {
    advance(ctx, batch);
    return sendJson(ctx, 200, batch.record);
  }
  return sendVendorError(ctx, 404, { message: `Invalid URL (${method} ${ctx.record.path})` });
}

function advance(ctx: MockContext, batch: MockBatch): void {
  const record = batch.record;
  const now = unixSeconds();
  const state = stateOf(ctx);
  const lines = (state.files.get(record.input_file_id)?.content.toString('utf8') ?? '').split('\n').filter((l) => l.trim() !== '');
  switch (record.status) {
    case 'validating':
      record.status = 'in_progress';
      record.in_progress_at = now;
      record.request_counts = { total: lines.length, completed: 0, failed: 0 };
      return;
    case 'in_progress':
      record.status = 'finalizing';
      record.finalizing_at = now;
      record.request_counts = { total: lines.length, completed: lines.length, failed: 0 };
      return;
    case 'finalizing': {
      const output = lines.map((line) => {
        const request = JSON.parse(line) as { custom_id: string; body: { model?: string } };
        const body = { id: vendorId('chatcmpl-'), object: 'chat.completion', created: now, model: request.body.model ?? 'vendor-chat-1', choices: [{ index: 0, message: { role: 'assistant', content: `[${ctx.label}] batch`, refusal: null }, finish_reason: 'stop', logprobs: null }] };
        return JSON.stringify({ id: vendorId('batch_req_'), custom_id: request.custom_id, response: { status_code: 200, request_id: vendorId('req_'), body }, error: null });
      });
      const content = Buffer.from(output.join('\n') + '\n');
      const file = { id: vendorId('file-'), object: 'file' as const, bytes: content.length, created_at: now, filename: 'batch_output.jsonl', purpose: 'batch_output', status: 'processed' as const, status_details: null, expires_at: null };
      state.files.set(file.id, { object: file, content });
      record.status = 'completed';
      record.completed_at = now;
      record.output_file_id = file.id;
      return;
    }
    case 'cancelling':
      record.status = 'cancelled';
      record.cancelled_at = now;
      return;
  }
}
