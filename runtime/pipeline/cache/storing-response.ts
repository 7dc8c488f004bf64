// An answer that, once it reached the client complete, is handed over for storing: its bytes are
// collected from the client's writes (no second read of the upstream body), and kept only when the
// body ended normally (a stream that broke off, or ended with an error event, is never stored) and
// stayed under the size bound.
import type { ServerResponse } from 'node:http';
import type { UpstreamResponse } from '../../upstream/types.ts';
import { attachTap } from '../body-tap.ts';
import type { BodyTap } from '../../core/body-tap.ts';

class Collector implements BodyTap {
  readonly #maxBytes: number;
  readonly #done: (body: Buffer) => void;
  #chunks: Buffer[] = [];
  #bytes = 0;
  #ended = false;
  #forwarded = false;

  constructor(maxBytes: number, done: (body: Buffer) => void) {
    this.#maxBytes = maxBytes;
    this.#done = done;
  }

  write(chunk: Buffer | string): void {
    if (this.#bytes > this.#maxBytes) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#bytes += bytes.length;
    if (this.#bytes > this.#maxBytes) this.#chunks = [];
    else this.#chunks.push(bytes);
  }

  end(): void {
    this.#ended = true;
    this.#finish();
  }

  /** A broken answer is never stored. */
  brokeOff(): void {
    this.#chunks = [];
  }

  /** The upstream body was forwarded to its end (forwardTo resolved). */
  forwarded(): void {
    this.#forwarded = true;
    this.#finish();
  }

  #finish(): void {
    if (!this.#ended || !this.#forwarded || this.#bytes > this.#maxBytes) return;
    const chunks = this.#chunks;
    this.#chunks = [];
    this.#done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  }
}

export function storing(response: UpstreamResponse, maxBytes: number, done: (body: Buffer) => void): UpstreamResponse {
  return {
    status: response.status,
    headers: response.headers,
    forwardTo(res: ServerResponse): Promise<void> {
      const collector = new Collector(maxBytes, done);
      attachTap(res, collector);
      return response.forwardTo(res).then(() => collector.forwarded());
    },
    readAll(): Promise<Buffer> {
      return response.readAll().then((body) => {
        if (body.length <= maxBytes) done(body);
        return body;
      });
    },
    discard: () => response.discard(),
  };
}
