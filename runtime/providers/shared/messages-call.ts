// The messages API's create call (`POST /v1/messages`, `?beta=true` as its SDK's beta client and the
// coding agents send it) and its token count (`POST /v1/messages/count_tokens`) to a cloud that
// serves Claude under its own URL: cloud C's invoke and CountTokens (cloudc/messages-invoke.ts) and
// cloud B's rawPredict (cloudb/messages-raw-predict.ts) take the messages API's body, the model named
// by the URL instead, and answer its message (its count). What both need: the call recognised, its
// body read and its model checked, and errors in the messages API's shape, so that a messages client
// reads the same answer whichever family served it.
import { GatewayError } from '../../core/errors.ts';
import { type ErrorAnswer, jsonErrorAnswer, statusOfErrorType, UNSAID_ERROR } from './error-answer.ts';
import type { SseEvent } from './sse.ts';
import { eventJson } from './stream-opening.ts';

/** The create call or its token count, with the query the beta client adds (and nothing else: the gateway makes the cloud's URL). */
const CALL_PATH = /^\/messages(\/count_tokens)?(?:\?(.*))?$/;

/** Which of the messages API's calls a pass-through call is: its create call, its token count, or neither (null). */
export function messagesCallOf(method: string, path: string): 'create' | 'count' | null {
  if (method !== 'POST') return null;
  const match = CALL_PATH.exec(path);
  return match === null ? null : match[1] === undefined ? 'create' : 'count';
}

/** A create call (or count) read: its model, whether it streams, and the rest of its body as it came. */
export interface MessagesCreate {
  model: string;
  streamed: boolean;
  /** The body without `model` and `stream`. */
  rest: Record<string, unknown>;
}

/** The cloud's rule for a model: what it must look like, and how the error says so. */
export interface CloudModels {
  /** Whether `model` names one of the cloud's Claude models. */
  test(model: string): boolean;
  /** What the cloud's Claude model names look like, for the refusal (`anthropic.claude-…`). */
  named: string;
  /** The operation that answers the call (`invoke`), for the refusal. */
  operation: string;
}

/**
 * The create call (or count) `path` and `body` (the transport parsed it, override_params applied:
 * ProviderCall.body) make for `provider`: a query other than `beta=true` is refused (the cloud's URL
 * has no place for it), and so is a model that is no Claude model of the cloud (another model's
 * operation takes its own vendor's body, and a messages API name is no model ID there: the refusal
 * says where to name one).
 */
export function messagesCreateOf(path: string, body: unknown, provider: string, models: CloudModels): MessagesCreate {
  refuseMessagesQuery(path, provider, models.operation);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new GatewayError('invalid_request_body', 'Invalid request body: the messages API takes a JSON object.');
  const { model, stream, ...rest } = body as Record<string, unknown>;
  if (typeof model !== 'string' || model === '') throw new GatewayError('invalid_request_body', 'Invalid request body: model must be a non-empty string.', '/model');
  if (!models.test(model)) {
    throw new GatewayError('invalid_request_body',
      `Invalid request body: the provider "${provider}" answers the messages API's create call with a Claude model's ${models.operation}, and "${model}" is not a Claude model ID there (${models.named}): name one, for example in the target's override_params.model.`,
      '/model');
  }
  if (stream !== undefined && typeof stream !== 'boolean') throw new GatewayError('invalid_request_body', 'Invalid request body: stream must be a boolean.', '/stream');
  return { model, streamed: stream === true, rest };
}

/** A query other than the beta client's `beta=true`: the URL the call goes to (`operation`'s) is the gateway's to make. */
export function refuseMessagesQuery(path: string, provider: string, operation: string): void {
  const query = CALL_PATH.exec(path)?.[2];
  if (query === undefined || query === '' || query === 'beta=true') return;
  const name = new URLSearchParams(query).keys().next().value ?? '';
  throw new GatewayError('unsupported_parameter', `The provider "${provider}" answers this call of the messages API through its ${operation}, whose URL the gateway makes: the query parameter "${name}" cannot be sent to it.`, name);
}

/** The messages API's error body for a status, by the types it documents. */
export function messagesError(status: number, message: string): { type: 'error'; error: { type: string; message: string } } {
  return { type: 'error', error: { type: messagesErrorType(status), message } };
}

function messagesErrorType(status: number): string {
  switch (status) {
    case 401: return 'authentication_error';
    case 403: return 'permission_error';
    case 404: return 'not_found_error';
    case 413: return 'request_too_large';
    case 429: return 'rate_limit_error';
    case 408: case 504: return 'timeout_error';
    case 503: case 529: return 'overloaded_error';
    default: return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** Whether an error body is already the messages API's (`{"type": "error", "error": {"type", "message"}}`), as Claude's own errors come through a cloud. */
export function isMessagesError(body: Record<string, unknown> | null): boolean {
  const error = body?.error as { type?: unknown; message?: unknown } | undefined;
  return body?.type === 'error' && typeof error === 'object' && error !== null && typeof error.type === 'string' && typeof error.message === 'string';
}

/**
 * A messages stream's `error` event, as the error answer its type stands for (529, 429, …), its data
 * the API's own error body; null for any other event. A stream that opens with one (`overloaded_error`
 * under load) is that error answer (stream-opening.ts), from Claude wherever it runs.
 */
export function messagesErrorEvent(event: SseEvent): ErrorAnswer | null {
  if (event.event !== 'error') return null;
  const error = eventJson(event)?.error as { type?: unknown; message?: unknown } | null | undefined;
  const type = typeof error?.type === 'string' ? error.type : 'api_error';
  // Through the pass-through the client reads this body as it is: the API's own shape, whole.
  const whole = typeof error?.message === 'string' && typeof error.type === 'string';
  const body = whole ? event.data : JSON.stringify({ type: 'error', error: { type, message: typeof error?.message === 'string' && error.message !== '' ? error.message : UNSAID_ERROR } });
  return jsonErrorAnswer(statusOfErrorType(type), body);
}
