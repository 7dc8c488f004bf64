// The provider's own usage for a vendor-shaped stream whose client did not ask for it. Such a stream
// has no usage chunk, so the request log (and the limits and budgets that charge what it records)
// could only estimate its tokens: the vendor SDKs stream without `stream_options.include_usage`
// unless told. Where the provider takes that option (schema/providers.json `asks_stream_usage`), the
// request asks for the chunk, and the answer is passed on without it: the chunk (empty `choices`,
// the whole request's `usage`) is taken out and reported to the log (StreamMapper.usage →
// UpstreamTry.reportedUsage), and so is the `"usage":null` member the other chunks then carry, so
// the client reads the stream it asked for.
import { parseJson } from '../../../compiler/config/json-parse.ts';
import type { EndpointKind, ProviderCall, ResponseMapping, StreamMapper } from '../types.ts';
import type { ChatUsage } from './chat-chunks.ts';
import { type SseEvent, SseParser } from './sse.ts';

/** The endpoints whose streams may carry a usage chunk. */
const STREAM_USAGE_ENDPOINTS: ReadonlySet<EndpointKind> = new Set(['chat', 'completions']);
const STREAM_MEMBER = Buffer.from('"stream"');
const ASK = Buffer.from('"stream_options":{"include_usage":true},');
/**
 * The member every other chunk carries once the option is on, written after `choices`. Found as
 * text: a string cannot hold an unescaped quote, so these bytes are always the object's own member.
 */
const NULL_USAGE = ',"usage":null';

/**
 * The body to send instead of the call's for a chat or completions stream that did not ask for the
 * usage chunk, to a provider that takes the option; null to send the call's own.
 */
export function callAskingStreamUsage(call: Pick<ProviderCall, 'endpoint' | 'rawBody'>): Buffer | null {
  return STREAM_USAGE_ENDPOINTS.has(call.endpoint) && call.rawBody !== null ? bodyAskingStreamUsage(call.rawBody) : null;
}

/** The mapping of an answer to a request that asked for the usage chunk: the chunk kept from the client, its errors as `error` maps them. */
export function streamUsageMapping(provider: string, error: NonNullable<ResponseMapping['error']>): ResponseMapping {
  return { provider, error, stream: () => new UsageChunkRemover() };
}

/**
 * The body to send instead of `raw` for a streamed request that did not ask for the usage chunk
 * (`stream` true, `stream_options.include_usage` not true); null for any other body, which is sent
 * as it is. The usual body (no `stream_options`) keeps its bytes, with the option written first;
 * one with other stream options is written again with the option added.
 */
export function bodyAskingStreamUsage(raw: Buffer): Buffer | null {
  // Most requests are not streamed: a scan for `"stream": true` without parsing them.
  if (!mayStream(raw)) return null;
  let body: unknown;
  try {
    body = parseJson(raw.toString('utf8'));
  } catch {
    return null;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const request = body as { stream?: unknown; stream_options?: unknown };
  if (request.stream !== true) return null;
  const options = request.stream_options;
  if (options === undefined) {
    const open = raw.indexOf('{');
    return Buffer.concat([raw.subarray(0, open + 1), ASK, raw.subarray(open + 1)]);
  }
  // A value the provider refuses (not an object) gets the provider's own 400, as the client sent it.
  if (options !== null && (typeof options !== 'object' || Array.isArray(options))) return null;
  if ((options as { include_usage?: unknown } | null)?.include_usage === true) return null;
  return Buffer.from(JSON.stringify({ ...request, stream_options: { ...(options as object | null), include_usage: true } }));
}

/** Whether some `"stream"` in the text is followed by `: true` (a top-level `stream: true` is, whatever the spacing). */
function mayStream(raw: Buffer): boolean {
  for (let at = raw.indexOf(STREAM_MEMBER); at !== -1; at = raw.indexOf(STREAM_MEMBER, at + STREAM_MEMBER.length)) {
    let i = skipSpace(raw, at + STREAM_MEMBER.length);
    if (raw[i] !== 0x3a) continue;
    i = skipSpace(raw, i + 1);
    if (raw[i] === 0x74) return true;
  }
  return false;
}

function skipSpace(raw: Buffer, from: number): number {
  let i = from;
  while (i < raw.length && (raw[i] === 0x20 || raw[i] === 0x0a || raw[i] === 0x0d || raw[i] === 0x09)) i++;
  return i;
}

/** The provider's stream as the client asked for it: without the usage chunk, which `usage()` returns. */
export class UsageChunkRemover implements StreamMapper {
  readonly #parser = new SseParser(undefined, 'throw', true);
  #usage: ChatUsage | null = null;

  push(chunk: Buffer): string {
    return this.#frames(this.#parser.push(chunk));
  }

  end(): string {
    return this.#frames(this.#parser.end());
  }

  usage(): ChatUsage | null {
    return this.#usage;
  }

  #frames(events: readonly SseEvent[]): string {
    let text = '';
    for (const event of events) {
      // A provider's keep-alive while it works on the answer keeps the client's idle timers quiet too.
      if (event.comment === true) {
        text += `${event.data}\n\n`;
        continue;
      }
      const data = this.#kept(event.data);
      if (data === null) continue;
      if (event.event !== 'message') text += `event: ${event.event}\n`;
      text += data.includes('\n') ? `data: ${data.split('\n').join('\ndata: ')}\n\n` : `data: ${data}\n\n`;
    }
    return text;
  }

  /** An event's data as the client gets it; null for the usage chunk. */
  #kept(data: string): string | null {
    const at = data.indexOf(NULL_USAGE);
    if (at !== -1) {
      const next = data.charCodeAt(at + NULL_USAGE.length);
      // Followed by the next member or the object's end (not `"usage":nullx`, which no JSON has).
      if (next === 0x2c || next === 0x7d) return data.slice(0, at) + data.slice(at + NULL_USAGE.length);
    }
    if (!data.includes('"usage"')) return data;
    let chunk: unknown;
    try {
      chunk = parseJson(data);
    } catch {
      return data;
    }
    const { choices, usage } = (chunk ?? {}) as { choices?: unknown; usage?: unknown };
    if (!Array.isArray(choices) || choices.length > 0 || usage === null || typeof usage !== 'object') return data;
    this.#usage = usage as ChatUsage;
    return null;
  }
}
