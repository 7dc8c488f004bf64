// /v1/fine_tuning/jobs of the vendor mock: create (the training file must be one of its files),
// list, retrieve, cancel, and checkpoints, with the vendor's cursor paging (newest first). Each job
// has CHECKPOINTS_PER_JOB checkpoints, so paging through them takes several pages.
import type { MockContext } from './context.ts';
import { jsonObject, unixSeconds, vendorId } from './context.ts';
import { cursorPage, type MockJob, stateOf } from './jobs-state.ts';
import { badRequest, sendJson, sendVendorError } from './respond.ts';

export const CHECKPOINTS_PER_JOB = 23;

export async function createJob(ctx: MockContext): Promise<void> {
  const body = jsonObject(ctx);
  if (body === null) return badRequest(ctx, 'We could not parse the JSON body of your request.');
  const state = stateOf(ctx);
  const training = typeof body.training_file === 'string' ? state.files.get(body.training_file) : undefined;
  if (training === undefined) return badRequest(ctx, `invalid training_file: ${String(body.training_file)}`, 'training_file', 'invalid_training_file');
  const created = unixSeconds();
  const id = vendorId('ftjob-');
  const record: MockJob['record'] = {
    id, object: 'fine_tuning.job', created_at: created, error: {}, fine_tuned_model: null, finished_at: null,
    hyperparameters: { n_epochs: 'auto' }, model: String(body.model), organization_id: 'org-mock', result_files: [], status: 'validating_files',
    trained_tokens: null, training_file: training.object.id, validation_file: typeof body.validation_file === 'string' ? body.validation_file : null,
    seed: Math.floor(Math.random() * 2 ** 31), integrations: [], estimated_finish: null,
  };
  const checkpoints = Array.from({ length: CHECKPOINTS_PER_JOB }, (_, i) => ({
    id: vendorId('ftckpt_'), object: 'fine_tuning.job.checkpoint', created_at: created + i, fine_tuned_model_checkpoint: `ft:${String(body.model)}:org-mock:${String(body.suffix ?? '')}:${id}:ckpt-step-${(i + 1) * 10}`,
    step_number: (i + 1) * 10, fine_tuning_job_id: id, metrics: { step: (i + 1) * 10, train_loss: 1 / (i + 1), train_mean_token_accuracy: i / CHECKPOINTS_PER_JOB },
  })).reverse();
  state.jobs.set(id, { record, checkpoints });
  await sendJson(ctx, 200, record);
}

export async function listJobs(ctx: MockContext): Promise<void> {
  const jobs = [...stateOf(ctx).jobs.values()].map((j) => j.record).reverse();
  const page = cursorPage(jobs, new URLSearchParams(ctx.record.query), 20);
  if ('error' in page) return badRequest(ctx, page.error);
  await sendJson(ctx, 200, { object: 'list', data: page.data, has_more: page.has_more });
}

export async function jobById(ctx: MockContext, id: string, sub: string | null): Promise<void> {
  const job = stateOf(ctx).jobs.get(id);
  if (job === undefined) return sendVendorError(ctx, 404, { message: `Could not find fine-tune: ${id}`, param: null, code: 'fine_tune_not_found' });
  const { method } = ctx.record;
  if (sub === null && method === 'GET') return sendJson(ctx, 200, job.record);
  if (sub === 'cancel' && method === 'POST') {
    if (['succeeded', 'failed', 'cancelled'].includes(job.record.status)) return badRequest(ctx, `Job ${id} has already completed and cannot be cancelled.`);
    job.record.status = 'cancelled';
    job.record.finished_at = unixSeconds();
    return sendJson(ctx, 200, job.record);
  }
  if (sub === 'checkpoints' && method === 'GET') {
    const page = cursorPage(job.checkpoints, new URLSearchParams(ctx.record.query), 10);
    if ('error' in page) return badRequest(ctx, page.error);
    return sendJson(ctx, 200, { object: 'list', data: page.data, has_more: page.has_more, first_id: page.data[0]?.id ?? null, last_id: page.data[page.data.length - 1]?.id ?? null });
  }
  return sendVendorError(ctx, 404, { message: `Invalid URL (${method} ${ctx.record.path})` });
}
