// Answers a stage makes itself (a cache hit, a denial with hook_results, a rewritten body): an
// UpstreamResponse over bytes in memory, so the server sends it exactly as it sends a provider's.
import type { ServerResponse } from 'node:http';
import type { UpstreamResponse } from '../upstream/types.ts';

const SENT: Promise<void> = Promise.resolve();

export function bufferedResponse(status: number, headers: Record<string, string | string[]>, body: Buffer): UpstreamResponse {
  return {
    status,
    headers,
    forwardTo(res: ServerResponse): Promise<void> {
      // The bytes are all here: one write, nothing to wait for (a client that left is no error).
      if (!res.destroyed) res.end(body);
      return SENT;
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
