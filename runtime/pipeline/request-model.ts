// Which model a request asks for, and which one a target sends instead: read here for the log (the
// record's model_requested; the model an answer that names none is priced as), the limits (policies
// on `model`) and the transport (which override the answering target applied).
import type { PlanLeaf } from '../core/plan.ts';
import { formModel } from '../core/form-body.ts';
import type { Exchange } from './exchange.ts';
import { peekMember } from './log/json-peek.ts';

/** How far into an unparsed request body the requested model is looked for. */
const MODEL_SCAN_BYTES = 64 * 1024;

/**
 * The body's `model`: of the parsed body when a stage read it, else a JSON member looked for without
 * a parse, or an upload's form field (audio, an image edit); null when it names none.
 */
export function requestedModel(x: Exchange): string | null {
  const params = x.params as { model?: unknown } | null | undefined;
  if (params !== undefined && params !== null && typeof params === 'object') return typeof params.model === 'string' ? params.model : null;
  if (x.rawBody === null) return null;
  const model = peekMember(x.rawBody, 'model', MODEL_SCAN_BYTES);
  return typeof model === 'string' ? model : formModel(x.rawBody, x.options.passedHeaders['content-type']);
}

/** The model a target's `override_params` sends instead of the request's; null when it sends the request's. */
export function overrideModel(leaf: PlanLeaf): string | null {
  const model = leaf.overrideParams.model;
  return typeof model === 'string' ? model : null;
}
