// Watching an answer's bytes as they reach the client, without a second stream: the server's
// response calls the tap from its own write and end (runtime/server/gateway-response.ts), and a
// caller that reads the whole body (a batch line) feeds the tap from readAll.
import type { ServerResponse } from 'node:http';
import type { UpstreamResponse } from '../upstream/types.ts';
import type { BodyTap, TappableResponse } from '../core/body-tap.ts';

function isTappable(res: ServerResponse): res is ServerResponse & TappableResponse {
  return 'bodyTap' in res;
}

/** Tells `tap` of every byte written to `res` from now on; a tap already there (an outer stage's) keeps being told. */
export function attachTap(res: ServerResponse, tap: BodyTap): void {
  if (!isTappable(res)) return;
  const before = res.bodyTap;
  res.bodyTap = before === null ? tap : new BothTaps(before, tap);
}

class BothTaps implements BodyTap {
  readonly #first: BodyTap;
  readonly #second: BodyTap;

  constructor(first: BodyTap, second: BodyTap) {
    this.#first = first;
    this.#second = second;
  }

  write(chunk: Buffer | string): void {
    this.#first.write(chunk);
    this.#second.write(chunk);
  }

  end(): void {
    this.#first.end();
    this.#second.end();
  }

  brokeOff(): void {
    this.#first.brokeOff();
    this.#second.brokeOff();
  }

  sent(chunk: Buffer): void {
    this.#first.sent?.(chunk);
    this.#second.sent?.(chunk);
  }
}

/**
 * The same answer, with `tap` told of every byte that goes to the client or to a reader. Plain data
 * properties only: an accessor here (a `get headers()`) made V8 keep these short-lived objects
 * through scavenges, and the gateway ran 35 full GCs in 5 s of load instead of 2 (measured with
 * wrk and --trace-gc).
 */
export function tapped(response: UpstreamResponse, tap: BodyTap): UpstreamResponse {
  return {
    status: response.status,
    headers: response.headers,
    forwardTo(res: ServerResponse): Promise<void> {
      attachTap(res, tap);
      return response.forwardTo(res);
    },
    readAll(): Promise<Buffer> {
      return response.readAll().then(
        (body) => {
          tap.write(body);
          tap.end();
          return body;
        },
        (error: unknown) => {
          tap.brokeOff();
          throw error;
        },
      );
    },
    discard: () => response.discard(),
  };
}
