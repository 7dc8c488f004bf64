// Answers a stage makes itself (a cache hit, a denial with hook_results, a rewritten body): an
// UpstreamResponse over bytes in memory, so the server sends it exactly as it sends a provider's.
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../core/errors.ts';
import { endInTurn } from '../upstream/end-in-turn.ts';
import type { UpstreamResponse } from '../upstream/types.ts';

export function bufferedResponse(status: number, headers: Record<string, string | string[]>, body: Buffer): UpstreamResponse {
  return {
    status,
    headers,
    forwardTo(res: ServerResponse): Promise<void> {
      // The bytes are all here: one write with this turn's other answers.
      return endInTurn(res, body);
    },
    readAll: () => Promise.resolve(body),
    discard() {},
  };
}

/** A JSON answer: content-type and content-length set from the body. */
export function jsonResponse(status: number, value: unknown, headers: Record<string, string | string[]> = {}): UpstreamResponse {
  const body = Buffer.from(JSON.stringify(value));
  return bufferedResponse(status, { ...headers, 'content-type': 'application/json', 'content-length': String(body.length) }, body);
}

/**
 * A JSON object's bytes with one more member at its end (`hook_results`), without parsing and
 * re-serialising the whole answer. Null when the bytes are not an object (`{…}`).
 */
export function withMember(body: Buffer, name: string, value: unknown): Buffer | null {
  let end = body.length - 1;
  while (end >= 0 && isSpace(body[end])) end--;
  let start = 0;
  while (start < end && isSpace(body[start])) start++;
  if (end <= start || body[start] !== 0x7b || body[end] !== 0x7d) return null;
  let last = end - 1;
  while (last > start && isSpace(body[last])) last--;
  const member = `${last === start ? '' : ','}${JSON.stringify(name)}:${JSON.stringify(value)}}`;
  // One buffer, the member encoded straight into it (no intermediate buffer for it, no concat).
  const out = Buffer.allocUnsafe(end + Buffer.byteLength(member));
  body.copy(out, 0, 0, end);
  out.write(member, end);
  return out;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * Why a provider's answer read whole (before the client sees a byte) could not be had: a gateway
 * error as it is (an answer past GATEWAY_UPSTREAM_MAX_BYTES), any other failure an answer that broke
 * off, a failed attempt (502 provider_invalid_response) that retries and fallbacks move past.
 */
export function unreadAnswerError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError('provider_invalid_response', `The provider's answer broke off: ${error instanceof Error ? error.message : String(error)}`);
}
