// The vendor mock's files, batches, fine-tuning and responses endpoints (its input count too) (registered in routes.ts):
// null when the path is none of theirs.
import type { MockContext } from './context.ts';
import { batchById, createBatch, listBatches } from './batches.ts';
import { createFile, fileById, listFiles } from './files.ts';
import { createJob, jobById, listJobs } from './fine-tuning.ts';
import { createResponse, responseById, responseInputItems } from './responses.ts';
import { countInputTokens } from './input-tokens.ts';
import { sendVendorError } from './respond.ts';

const BY_ID = /^\/v1\/(files|batches|fine_tuning\/jobs|responses)\/([^/]+)(?:\/([a-z_]+))?$/;

export function routeJobs(ctx: MockContext): Promise<void> | null {
  const { method, path } = ctx.record;
  switch (`${method} ${path}`) {
    case 'POST /v1/files': return createFile(ctx);
    case 'GET /v1/files': return listFiles(ctx);
    case 'POST /v1/batches': return createBatch(ctx);
    case 'GET /v1/batches': return listBatches(ctx);
    case 'POST /v1/fine_tuning/jobs': return createJob(ctx);
    case 'GET /v1/fine_tuning/jobs': return listJobs(ctx);
    case 'POST /v1/responses': return createResponse(ctx);
    case 'POST /v1/responses/input_tokens': return countInputTokens(ctx);
  }
  const match = BY_ID.exec(path);
  if (match === null) return null;
  const id = decodeURIComponent(match[2]);
  const sub = match[3] ?? null;
  switch (match[1]) {
    case 'files': return fileById(ctx, id, sub);
    case 'batches': return batchById(ctx, id, sub);
    case 'fine_tuning/jobs': return jobById(ctx, id, sub);
    default: return sub === null ? responseById(ctx, id) : sub === 'input_items' && method === 'GET' ? responseInputItems(ctx, id) : sendVendorError(ctx, 404, { message: `Invalid URL (${method} ${path})` });
  }
}
