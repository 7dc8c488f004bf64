// An error answer made of what a provider sent inside a 2xx answer: the first event of a stream
// (stream-opening.ts), or a JSON answer that is an error dressed as success (`{"error": {...}}` with
// status 200, as OpenRouter and other proxies answer a failure that came after they accepted the
// request). Nothing of it has reached the client, so it is answered as the error it is, with the
// status it names: retries, fallbacks, the circuit breaker and the log see that status.
import { jsonObjectOf } from './errors.ts';

/** An error answer: its status, the headers that describe its body, and the body. */
export interface ErrorAnswer {
  status: number;
  /** content-type, and any header the family's error mapping reads. */
  headers: Record<string, string>;
  body: Buffer;
}

/** An error answer with a JSON body. */
export function jsonErrorAnswer(status: number, body: string | Buffer, headers: Record<string, string> = {}): ErrorAnswer {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? Buffer.from(body) : body };
}

const ERROR_NAME = Buffer.from('"error"');

/**
 * A 2xx vendor-shaped JSON answer (chat, completions, embeddings) whose top-level `error` is an object
 * or a message: the error answer of the status it names (vendorErrorStatus), the body as it came
 * when it is a well-formed error body (vendorErrorBody). Null for any other answer; most are ruled
 * out by a native search for the member's name.
 */
export function dressedErrorAnswer(body: Buffer): ErrorAnswer | null {
  if (!body.includes(ERROR_NAME)) return null;
  const error = jsonObjectOf(body)?.error;
  return isErrorMember(error) ? jsonErrorAnswer(vendorErrorStatus(error), vendorErrorBody(error, body)) : null;
}

/** What an error body says when the provider's says nothing. */
export const UNSAID_ERROR = 'The provider reported an error.';

/**
 * The body of an error answer made of a vendor-shaped `error` member: `raw` (the provider's own
 * bytes) when the error has a `message` and a `type` (what every reader of an error body looks
 * for), else `{"error": {...}}` with those filled in: a pass-through answer is not mapped, so its
 * client reads this body as it is.
 */
export function vendorErrorBody(error: unknown, raw: Buffer | string): Buffer | string {
  if (typeof error === 'string') return JSON.stringify({ error: { message: error, type: PROVIDER_ERROR, param: null, code: null } });
  const e = error as Record<string, unknown>;
  if (typeof e.message === 'string' && typeof e.type === 'string') return raw;
  return JSON.stringify({ error: { ...e, message: typeof e.message === 'string' && e.message !== '' ? e.message : UNSAID_ERROR, type: typeof e.type === 'string' ? e.type : PROVIDER_ERROR } });
}

const PROVIDER_ERROR = 'provider_error';

/** An `error` member that says something went wrong: an object, or a message. */
export function isErrorMember(error: unknown): boolean {
  return (typeof error === 'object' && error !== null) || (typeof error === 'string' && error !== '');
}

/** The HTTP status a vendor-shaped error object stands for. */
export function vendorErrorStatus(error: unknown): number {
  if (typeof error !== 'object' || error === null) return 500;
  const e = error as Record<string, unknown>;
  for (const value of [e.status, e.code]) {
    const status = typeof value === 'number' ? value : typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : NaN;
    if (status >= 400 && status < 600) return status;
  }
  for (const value of [e.type, e.code]) {
    if (typeof value === 'string' && Object.hasOwn(STATUS_OF_TYPE, value)) return STATUS_OF_TYPE[value];
  }
  return 500;
}

/** The status an error type is sent with (the messages API's types among them: `overloaded_error` 529); 500 for one not known (`api_error`). */
export function statusOfErrorType(type: string): number {
  return Object.hasOwn(STATUS_OF_TYPE, type) ? STATUS_OF_TYPE[type] : 500;
}

/**
 * Error types and codes by the status they are sent with: the messages API's (all of them), the
 * vendor's, and the common proxies'.
 */
const STATUS_OF_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  invalid_api_key: 401,
  permission_error: 403,
  not_found_error: 404,
  model_not_found: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  insufficient_quota: 429,
  overloaded_error: 529,
  service_unavailable: 503,
  server_error: 500,
  api_error: 500,
};
