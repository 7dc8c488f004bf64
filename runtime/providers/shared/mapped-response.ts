// An upstream answer seen through a ResponseMapping: same status, the provider's headers minus the
// ones that describe the old body (content-length, content-type, content-encoding), and a body
// rewritten into the vendor's shape. Streams are rewritten chunk by chunk with backpressure.
import type { ServerResponse } from 'node:http';
import { finished } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { endInTurn } from '../../upstream/end-in-turn.ts';
import type { UpstreamResponse } from '../../upstream/types.ts';
import type { ResponseMapping, StreamMapper } from '../types.ts';
import { parseJson } from '../../core/json-parse.ts';

const BODY_HEADERS = new Set(['content-length', 'content-type', 'content-encoding', 'content-md5', 'etag']);

/** The mapping that applies to this answer, or null when its bytes go through untouched. */
export function mapResponse(upstream: UpstreamResponse, mapping: ResponseMapping | null): UpstreamResponse {
  if (mapping === null) return upstream;
  mapping.observe?.(upstream.status);
  const ok = upstream.status >= 200 && upstream.status < 300;
  if (!ok) return mapping.error === undefined ? upstream : buffered(upstream, (body) => mapping.error!(upstream.status, body, upstream.headers));
  if (mapping.stream !== undefined) return streamed(upstream, mapping.stream());
  if (mapping.json !== undefined) return buffered(upstream, (body) => mapping.json!(bodyJson(body)));
  return upstream;
}

/** The answer's body as JSON; undefined when it is not JSON. */
function bodyJson(body: Buffer): unknown {
  try {
    return parseJson(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function headersFor(upstream: UpstreamResponse, contentType: string): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(upstream.headers)) if (!BODY_HEADERS.has(name)) headers[name] = value;
  headers['content-type'] = contentType;
  return headers;
}

/** Whole-body mapping (JSON answers and error bodies): read, rewrite, send with the new length. */
function buffered(upstream: UpstreamResponse, rewrite: (body: Buffer) => unknown): UpstreamResponse {
  let mapped: Promise<Buffer> | null = null;
  const body = (): Promise<Buffer> => (mapped ??= upstream.readAll().then((bytes) => Buffer.from(JSON.stringify(rewrite(bytes)))));
  let headers: Record<string, string | string[]> | null = null;
  return {
    status: upstream.status,
    // Built when read: a fallback or retry discards most error answers without looking at them.
    get headers() {
      return (headers ??= headersFor(upstream, 'application/json'));
    },
    async forwardTo(res: ServerResponse): Promise<void> {
      await endInTurn(res, await body());
    },
    readAll: body,
    discard: () => upstream.discard(),
  };
}

/** Stream mapping: provider frames in, vendor SSE out, as the provider's bytes arrive. */
function streamed(upstream: UpstreamResponse, mapper: StreamMapper): UpstreamResponse {
  return {
    status: upstream.status,
    headers: { ...headersFor(upstream, 'text/event-stream; charset=utf-8'), 'cache-control': 'no-cache' },
    async forwardTo(res: ServerResponse): Promise<void> {
      const sink = new MappingSink(res, mapper);
      try {
        // The sink stands in for the client response: it has the parts of ServerResponse that the
        // upstream layer's forwarding uses (write with backpressure, drain, close, destroyed, end).
        await upstream.forwardTo(sink as unknown as ServerResponse);
        await finished(sink);
      } catch (error) {
        sink.destroy();
        throw error;
      }
      if (!res.destroyed) res.end(mapper.end());
    },
    async readAll(): Promise<Buffer> {
      const bytes = await upstream.readAll();
      return Buffer.from(mapper.push(bytes) + mapper.end());
    },
    discard: () => upstream.discard(),
  };
}

class MappingSink extends Writable {
  readonly #res: ServerResponse;
  readonly #mapper: StreamMapper;

  constructor(res: ServerResponse, mapper: StreamMapper) {
    super();
    this.#res = res;
    this.#mapper = mapper;
    // The client went away: the upstream layer watches this sink's close to abort the provider.
    res.once('close', () => {
      if (!res.writableFinished) this.destroy();
    });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    let text: string;
    try {
      text = this.#mapper.push(chunk);
    } catch (error) {
      callback(error as Error);
      return;
    }
    const res = this.#res;
    if (text === '') {
      callback();
      return;
    }
    if (res.destroyed) {
      callback(new Error('the client closed the response'));
      return;
    }
    if (res.write(text)) {
      callback();
      return;
    }
    const settle = (): void => {
      res.off('drain', settle);
      res.off('close', settle);
      callback(res.destroyed ? new Error('the client closed the response') : null);
    };
    res.on('drain', settle);
    res.on('close', settle);
  }
}
