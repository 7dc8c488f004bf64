// A 2xx answer that is an error dressed as success: some providers and proxies answer 200 with
// `{"error": {...}}`, or put an error event in a stream that then ends normally. Passed on to the
// client as it came, but never stored: a cache would otherwise answer the same error for max_age.
import { SseParser } from '../../providers/shared/sse.ts';
import { peekMember } from '../log/json-peek.ts';
import { MAX_EVENT_CHARS } from '../log/usage-tap.ts';

const ERROR_NAME = Buffer.from('"error"');

/** True when the JSON answer, or any event of the stream, has a top-level `error` that is not null. */
export function carriesError(body: Buffer, stream: boolean): boolean {
  // Most answers cannot have the member: a native search first, the precise read only when it finds the name.
  if (!stream) return body.includes(ERROR_NAME) && hasError(body);
  const parser = new SseParser(MAX_EVENT_CHARS, 'skip');
  for (const events of [parser.push(body), parser.end()]) {
    for (const event of events) {
      if (event.event === 'error') return true;
      if (event.data.includes('"error"') && hasError(Buffer.from(event.data))) return true;
    }
  }
  return false;
}

function hasError(json: Buffer): boolean {
  const error = peekMember(json, 'error');
  return error !== undefined && error !== null;
}
