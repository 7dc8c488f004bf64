// A provider's wire body for a request body, made once for the retries and fallback tries that send
// it again. Mapping a chat request to another family's format parses nothing but walks and serialises
// the whole body: ~170 ms for 14 MB of short messages on the 2-core VM, and a request may try up to
// 200 times (CFG_TOO_MANY_CALLS), so a fallback through a failing provider held the serving thread for
// tens of seconds. A mapping reads only the body (never the credential, host or options), so the body
// object and the mapping's name are its whole key. Only the last mapping of a body is kept: a
// fallback across families keeps one at a time, never one per target for the request's life.
import { lastKept, type LastKept } from '../../core/memo.ts';
import { jsonBuffer } from './chat.ts';

const mappedBodies = new WeakMap<object, LastKept<string, Buffer>>();

/**
 * The bytes of `map()` for `body`, kept for the next call with the same body object and `mapping`
 * (a name for the adapter's mapping, e.g. "anthropic.messages"). Bodies are never changed in place
 * (a stage that rewrites one sets a new object), so the object's identity stands for its content.
 */
export function mappedBody(body: object, mapping: string, map: () => unknown): Buffer {
  return lastKept(mappedBodies, body, mapping, () => jsonBuffer(map()));
}
