// What a request asks for, and what a target sends instead: read here for the log (the record's
// model_requested; the model an answer that names none is priced as; the images and characters a
// request billed per unit asks for) and the limits (policies on `model`).
import { boundaryOf, formTextField } from '../core/multipart.ts';
import type { Exchange } from './exchange.ts';
import { peekMember } from './log/json-peek.ts';
import { pathModel } from './metered-pass-through.ts';

/** How far into an unparsed request body the requested model is looked for. */
const MODEL_SCAN_BYTES = 64 * 1024;

/**
 * The body's top-level `name`: of the parsed body when a stage read it, else an upload's form field
 * (audio, an image edit), a string, or a JSON member looked for without a parse in the first
 * `scanBytes`; undefined when it has none.
 */
export function requestParam(x: Exchange, name: string, scanBytes = Number.MAX_SAFE_INTEGER): unknown {
  const params = x.params as Record<string, unknown> | null | undefined;
  if (params !== undefined && params !== null && typeof params === 'object') return Object.hasOwn(params, name) ? params[name] : undefined;
  if (x.rawBody === null) return undefined;
  // A form is searched for its field in place; only JSON is scanned for a member (a scan of an
  // upload's megabytes would find nothing, slowly).
  const boundary = boundaryOf(x.options.passedHeaders['content-type']);
  if (boundary !== null) return formTextField(x.rawBody, boundary, name) ?? undefined;
  return peekMember(x.rawBody, name, scanBytes);
}

/** The model a request names: its body's `model`, else a pass-through call's path's (pathModel); null when it names none. */
export function requestedModel(x: Exchange): string | null {
  const model = requestParam(x, 'model', MODEL_SCAN_BYTES);
  return typeof model === 'string' ? model : pathModel(x);
}

/**
 * `name` as the answering target sent it: its `override_params` value when it has one (null: it
 * removed it), else the request's.
 */
export function sentParam(x: Exchange, name: string): unknown {
  const overrides = x.upstreamTry?.overrides;
  return overrides !== undefined && Object.hasOwn(overrides, name) ? overrides[name] : requestParam(x, name);
}

/** The model a target's `override_params` (`overrides`) sends instead of the request's; null when it sends the request's. */
export function overrideModel(overrides: Readonly<Record<string, unknown>>): string | null {
  const model = overrides.model;
  return typeof model === 'string' ? model : null;
}

/** The model the answering target sent instead of the request's (its `override_params`); null when it sent the request's, or no try began. */
export function overriddenModel(x: Exchange): string | null {
  const overrides = x.upstreamTry?.overrides;
  return overrides === undefined ? null : overrideModel(overrides);
}
