// GET /v1/models and GET /v1/models/{id}.
import type { MockContext } from './context.ts';
import { sendJson, sendVendorError } from './respond.ts';

const CREATED = 1_700_000_000;

function model(id: string): object {
  return { id, object: 'model', created: CREATED, owned_by: 'vendor' };
}

export function listModels(ctx: MockContext): Promise<void> {
  return sendJson(ctx, 200, { object: 'list', data: ctx.models.map(model) });
}

export function retrieveModel(ctx: MockContext, id: string): Promise<void> {
  if (!ctx.models.includes(id)) {
    return sendVendorError(ctx, 404, {
      message: `The model '${id}' does not exist`,
      param: 'model',
      code: 'model_not_found',
    });
  }
  return sendJson(ctx, 200, model(id));
}
