// A provider may open a 2xx stream with an error: the messages-style API answers 200 and then an
// `error` event (`overloaded_error`, its most common failure), proxies and compatible servers send
// `data: {"error": …}`, the binary event stream an exception message. Nothing has reached the client
// then (its head is written with the first byte, runtime/inference/transport.ts), so such a stream
// is the error answer it stands for: the status its error type names and the error as the body, which
// retries, fallbacks, circuit breakers and the log treat like the same error sent with that status.
// Only the first event is read: an error after a token, a role or a keep-alive comment ends a
// stream that is under way, and is passed on as it comes.
import { jsonObjectOf } from './errors.ts';
import { type SseEvent, SseParser } from './sse.ts';

/** Bytes of a stream's start read for its first event; past it the stream has begun (an error event is far shorter). */
export const OPENING_BYTES = 16 * 1024;

/** The error answer a stream opened with. */
export interface OpeningError {
  status: number;
  /** Headers that describe the body (content-type, and any the family's error mapping reads). */
  headers: Record<string, string>;
  body: Buffer;
}

/** `more`: the first event is not whole yet; `began`: the stream is under way; else the error it opened with. */
export type StreamOpening = 'more' | 'began' | OpeningError;

/** How a family's 2xx streams are read for the error they open with. */
export interface OpeningJudge {
  /** Whether the answer is one of the family's streams (its content type): only those are read. */
  streams(headers: Readonly<Record<string, string | string[]>>): boolean;
  /** What the stream's start (the bytes held so far) says. */
  judge(held: Buffer): StreamOpening;
}

const SSE_TYPE = /^text\/event-stream/i;

/** A judge for an SSE-speaking family: `errorOf` says whether its first event (never a comment) is an error. */
export function sseOpening(errorOf: (event: SseEvent) => OpeningError | null): OpeningJudge {
  return {
    streams: (headers) => contentTypeIs(headers, SSE_TYPE),
    judge(held) {
      // Comments kept: a keep-alive first means a stream that is under way, whose head may go out.
      const [first] = new SseParser(OPENING_BYTES, 'skip', true).push(held.subarray(0, OPENING_BYTES));
      if (first === undefined) return held.length >= OPENING_BYTES ? 'began' : 'more';
      return first.comment === true ? 'began' : (errorOf(first) ?? 'began');
    },
  };
}

/** An error answer with a JSON body. */
export function jsonOpeningError(status: number, body: string | Buffer, headers: Record<string, string> = {}): OpeningError {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? Buffer.from(body) : body };
}

/** The event's data as a JSON object; null when it is not one. */
export function eventJson(event: SseEvent): Record<string, unknown> | null {
  return jsonObjectOf(Buffer.from(event.data));
}

/**
 * The vendor-shaped families' judge: an `error` event, or an event whose JSON has an `error` object
 * or message (`"error": false` or `null` is no error). The status is the error's own (`status` or
 * `code` as an HTTP status), else the one its type names, else 500; the body is the event's JSON
 * (`{"error": {...}}`, the family's error body).
 */
export const vendorStreamOpening: OpeningJudge = sseOpening((event) => {
  const named = event.event === 'error';
  // Most first events are a chunk: the member's name is searched for before any parse.
  if (!named && !event.data.includes('"error"')) return null;
  const json = eventJson(event);
  const error = json?.error;
  if (json === null || !isErrorMember(error)) {
    if (!named) return null;
    return jsonOpeningError(500, JSON.stringify({ error: { message: json === null ? event.data : 'The provider opened its stream with an error.', type: 'provider_error', param: null, code: null } }));
  }
  return jsonOpeningError(vendorErrorStatus(error), event.data);
});

/** An `error` member that says something went wrong: an object, or a message. */
function isErrorMember(error: unknown): boolean {
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

/** Error types and codes of the vendor's API, the messages-style API and the common proxies, by the status they are sent with. */
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

/** Whether the answer's content type matches `type` (a pattern anchored at its start, case-insensitive). */
export function contentTypeIs(headers: Readonly<Record<string, string | string[]>>, type: RegExp): boolean {
  const value = headers['content-type'];
  return typeof value === 'string' && type.test(value);
}
