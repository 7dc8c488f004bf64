// An upstream answer seen through a ResponseMapping: same status, the provider's headers minus the
// ones that describe the old body (content-length, content-type, content-encoding), and a body
// rewritten into the vendor's shape. Streams are rewritten chunk by chunk with backpressure.
import type { ServerResponse } from 'node:http';
import { finished } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { endInTurn } from '../../upstream/end-in-turn.ts';
import type { UpstreamResponse } from '../../upstream/types.ts';
import type { ResponseMapping, StreamMapper } from '../types.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';
import { GatewayError } from '../../core/errors.ts';
import { brokenStreamFrame, type ChatUsage } from './chat-chunks.ts';
import type { BodyTap, TappableResponse } from '../../core/body-tap.ts';

const BODY_HEADERS = new Set(['content-length', 'content-type', 'content-encoding', 'content-md5', 'etag']);

/**
 * The mapping that applies to this answer, or null when its bytes go through untouched.
 * `reportUsage` hears a mapped stream's usage as the provider reported it, before the stream's last
 * bytes are written (the log reads it when the client did not ask for the usage chunk).
 */
export function mapResponse(upstream: UpstreamResponse, mapping: ResponseMapping | null, reportUsage?: (usage: ChatUsage) => void): UpstreamResponse {
  if (mapping === null) return upstream;
  mapping.observe?.(upstream.status);
  const ok = upstream.status >= 200 && upstream.status < 300;
  if (!ok) return mappedError(upstream, mapping);
  if (mapping.stream !== undefined) return streamed(upstream, new ShapeGuard(mapping.provider, mapping.stream()), reportUsage);
  if (mapping.json !== undefined) return buffered(upstream, (body) => {
    try {
      return mapping.json!(bodyJson(body));
    } catch (error) {
      // A mapper's own refusal stands; anything else is the answer's shape.
      if (error instanceof GatewayError) throw error;
      throw new GatewayError('provider_invalid_response', UNDOCUMENTED, null, { provider: mapping.provider });
    }
  });
  return upstream;
}

/** An error answer (the provider's, or one made of what came with a 2xx: error-answer.ts) as the mapping's `error` rewrites it. */
export function mappedError(upstream: UpstreamResponse, mapping: ResponseMapping): UpstreamResponse {
  return mapping.error === undefined ? upstream : buffered(upstream, (body) => mapping.error!(upstream.status, body, upstream.headers));
}

// Said without the JavaScript error's wording ("Cannot read properties of null"), which names none of the provider's fields.
const UNDOCUMENTED = "The provider's answer does not have the shape its API documents, so it cannot be translated.";

/**
 * A mapper reads the provider's events as its API documents them; an event of another shape (null,
 * a list where an object belongs) makes it throw. The client then gets a broken-stream frame that
 * says so, and nothing more of the stream, instead of a JavaScript error's wording.
 */
class ShapeGuard implements StreamMapper {
  readonly #provider: string;
  readonly #inner: StreamMapper;
  #failed = false;

  constructor(provider: string, inner: StreamMapper) {
    this.#provider = provider;
    this.#inner = inner;
  }

  push(chunk: Buffer): string {
    return this.#guarded(() => this.#inner.push(chunk));
  }

  end(): string {
    return this.#guarded(() => this.#inner.end());
  }

  usage(): ChatUsage | null {
    return this.#failed ? null : this.#inner.usage();
  }

  #guarded(map: () => string): string {
    if (this.#failed) return '';
    try {
      return map();
    } catch {
      this.#failed = true;
      return brokenStreamFrame(this.#provider, "an event does not have the shape the provider's API documents");
    }
  }
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
function streamed(upstream: UpstreamResponse, mapper: StreamMapper, reportUsage: ((usage: ChatUsage) => void) | undefined): UpstreamResponse {
  const ended = (): string => {
    const tail = mapper.end();
    const usage = mapper.usage();
    if (usage !== null) reportUsage?.(usage);
    return tail;
  };
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
      if (!res.destroyed) res.end(ended());
    },
    async readAll(): Promise<Buffer> {
      const bytes = await upstream.readAll();
      return Buffer.from(mapper.push(bytes) + ended());
    },
    discard: () => upstream.discard(),
  };
}

/**
 * Stands in for the client's response while a stream is rewritten on its way there: each chunk goes
 * through the mapper and its text to `res`, with backpressure. A tap attached to it (a stage's:
 * runtime/pipeline/body-tap.ts) is told of the chunks as they came, before the rewriting, as the
 * gateway's own response tells it of what it writes: an emulated Responses stream is metered,
 * cached and judged as the chat stream it reads.
 */
export class MappingSink extends Writable implements TappableResponse {
  readonly #res: ServerResponse;
  readonly #mapper: Pick<StreamMapper, 'push'>;
  bodyTap: BodyTap | null = null;

  constructor(res: ServerResponse, mapper: Pick<StreamMapper, 'push'>) {
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
    this.bodyTap?.write(chunk);
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

  override _final(callback: (error?: Error | null) => void): void {
    const tap = this.bodyTap;
    this.bodyTap = null;
    tap?.end();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Destroyed before its end: the client left, or the provider's answer broke.
    const tap = this.bodyTap;
    this.bodyTap = null;
    tap?.brokeOff();
    callback(error);
  }
}
