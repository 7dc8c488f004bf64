// A provider may open a 2xx stream with an error: the messages-style API answers 200 and then an
// `error` event (`overloaded_error`, its most common failure), proxies and compatible servers send
// `data: {"error": …}`, the binary event stream an exception message. Nothing has reached the client
// then (its head is written with the first byte, runtime/inference/transport.ts), so such a stream
// is the error answer it stands for: the status its error type names and the error as the body, which
// retries, fallbacks, circuit breakers and the log treat like the same error sent with that status.
// Only the first event is read (keep-alive comments before it are read past: OpenRouter sends them
// while it works on a request, then its error if that failed): an error after a token or a role ends
// a stream that is under way, and is passed on as it comes.
import { type ErrorAnswer, isErrorMember, jsonErrorAnswer, UNSAID_ERROR, vendorErrorBody, vendorErrorStatus } from './error-answer.ts';
import { jsonObjectOf } from './errors.ts';
import { type SseEvent, SseParser } from './sse.ts';

/** Bytes of a stream's start read for its first event; past it the stream has begun (an error event is far shorter). */
export const OPENING_BYTES = 16 * 1024;

/** `more`: the first event is not whole yet; `began`: the stream is under way; else the error it opened with. */
export type StreamOpening = 'more' | 'began' | ErrorAnswer;

/** How a family's 2xx streams are read for the error they open with. */
export interface OpeningJudge {
  /** Whether the answer is one of the family's streams (its content type): only those are read. */
  streams(headers: Readonly<Record<string, string | string[]>>): boolean;
  /** What the stream's start (the bytes held so far) says. */
  judge(held: Buffer): StreamOpening;
}

const SSE_TYPE = /^text\/event-stream/i;
/** Bytes parsed at a time while looking for the first event (most first events are shorter). */
const OPENING_SLICE = 1024;

/** A judge for an SSE-speaking family: `errorOf` says whether its first event (comments are none) is an error. */
export function sseOpening(errorOf: (event: SseEvent) => ErrorAnswer | null): OpeningJudge {
  return {
    streams: (headers) => contentTypeIs(headers, SSE_TYPE),
    judge(held) {
      // Read a slice at a time up to the first event: a first chunk that holds the whole answer (a
      // short one, or a fast provider's) is not parsed past it.
      const parser = new SseParser(OPENING_BYTES, 'skip');
      const end = Math.min(held.length, OPENING_BYTES);
      for (let at = 0; at < end; at += OPENING_SLICE) {
        const [first] = parser.push(held.subarray(at, Math.min(end, at + OPENING_SLICE)));
        if (first !== undefined) return errorOf(first) ?? 'began';
      }
      return held.length >= OPENING_BYTES ? 'began' : 'more';
    },
  };
}

/** The event's data as a JSON object; null when it is not one. */
export function eventJson(event: SseEvent): Record<string, unknown> | null {
  return jsonObjectOf(Buffer.from(event.data));
}

/**
 * The vendor-shaped families' judge: an `error` event, or an event whose JSON has an `error` object
 * or message (`"error": false` or `null` is no error). The status is the error's own (`status` or
 * `code` as an HTTP status), else the one its type names, else 500; the body is the event's JSON
 * (`{"error": {...}}`, the family's error body), or an `error` event's data as the `error` in it.
 */
export const vendorStreamOpening: OpeningJudge = sseOpening((event) => {
  const named = event.event === 'error';
  // Most first events are a chunk: the member's name is searched for before any parse.
  if (!named && !event.data.includes('"error"')) return null;
  const json = eventJson(event);
  const error = json?.error;
  if (isErrorMember(error)) return jsonErrorAnswer(vendorErrorStatus(error), vendorErrorBody(error, event.data));
  if (!named) return null;
  // An `error` event that is the error itself (the Responses API's `{"type": "error", "code", "message"}`), or not JSON.
  if (json !== null) return jsonErrorAnswer(vendorErrorStatus(json), vendorErrorBody(json, JSON.stringify({ error: json })));
  return jsonErrorAnswer(500, vendorErrorBody(event.data === '' ? UNSAID_ERROR : event.data, ''));
});

/** Whether the answer's content type matches `type` (a pattern anchored at its start, case-insensitive). */
export function contentTypeIs(headers: Readonly<Record<string, string | string[]>>, type: RegExp): boolean {
  const value = headers['content-type'];
  return typeof value === 'string' && type.test(value);
}
