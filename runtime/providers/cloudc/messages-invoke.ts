// The messages API's create call (`POST /v1/messages`, `?beta=true` as its SDK's beta client and the
// coding agents send it) to a `cloudc` target: a Claude model's invoke, which takes the same body
// and answers the same message (and its token count the same body's CountTokens). So one body reaches Claude through the messages API or through cloud
// C, and a fallback from an `anthropic` target to a `cloudc` one works for a messages client (the
// target's `override_params.model` names the model as cloud C does). What differs is put right here:
// the model goes into the path and `stream` chooses invoke-with-response-stream; the API version is
// the body's `anthropic_version`; betas the route forwards (`anthropic-beta`) go in the body's
// `anthropic_beta`; a stream's events come back from the binary event stream's `chunk` events as the
// server-sent events the messages API sends; errors come back in the messages API's error shape.
import { jsonObjectOf } from '../shared/errors.ts';
import { type CloudModels, messagesCreateOf, messagesError } from '../shared/messages-call.ts';
import type { ResponseMapping, StreamMapper } from '../types.ts';
import { EventStreamDecoder, EventStreamError, type EventMessage } from './event-stream.ts';
import { INVOCATION_METRICS, ownStreamEventOf } from './own-stream-events.ts';
import { CLAUDE_MODEL } from './request.ts';
import { errorTypeOf, statusOfException } from './response.ts';
import { exceptionOf } from './stream.ts';
import { UNSAID_ERROR } from '../shared/error-answer.ts';

/** The invoke body's API version, which cloud C requires in place of the `anthropic-version` header. */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/** Cloud C's Claude models: an ID, an inference profile or an ARN naming `anthropic.claude`. */
const CLAUDE_ON_CLOUDC: CloudModels = { test: (model) => CLAUDE_MODEL.test(model), named: 'anthropic.claude-…, or an inference profile such as us.anthropic.claude-…', operation: 'invoke' };

/** The invoke a messages create call becomes on cloud C. */
export interface MessagesInvoke {
  /** `/model/{id}/invoke` or `/invoke-with-response-stream`. */
  path: string;
  body: Buffer;
  streamed: boolean;
}

/**
 * The invoke of a messages create call (shared/messages-call.ts reads it and checks the model): the
 * body without `model` and `stream`, with `anthropic_version`, and the betas `anthropic-beta` names
 * (where the route forwards it) as `anthropic_beta`, which is where cloud C takes them.
 */
export function messagesInvokeOf(path: string, body: unknown, betas: string | undefined, provider: string): MessagesInvoke {
  const { model, streamed, rest } = messagesCreateOf(path, body, provider, CLAUDE_ON_CLOUDC);
  return { path: `/model/${encodeURIComponent(model)}/${streamed ? 'invoke-with-response-stream' : 'invoke'}`, body: Buffer.from(JSON.stringify(invokeBody(rest, betas))), streamed };
}

/**
 * The CountTokens call of a messages token count: the invoke body the create call would send, in
 * base64 under `input.invokeModel.body`, where cloud C counts it. The invoke requires `max_tokens`,
 * which a count has none of and which changes no count: 1 unless the body names one.
 */
export function messagesCountOf(path: string, body: unknown, betas: string | undefined, provider: string): { path: string; body: Buffer } {
  const { model, rest } = messagesCreateOf(path, body, provider, CLAUDE_ON_CLOUDC);
  const invoke = invokeBody({ max_tokens: 1, ...rest }, betas);
  return { path: `/model/${encodeURIComponent(model)}/count-tokens`, body: Buffer.from(JSON.stringify({ input: { invokeModel: { body: Buffer.from(JSON.stringify(invoke)).toString('base64') } } })) };
}

/** The invoke's body: the API version, the forwarded betas (unless the body names its own), and the rest as it came. */
function invokeBody(rest: Record<string, unknown>, betas: string | undefined): Record<string, unknown> {
  const invoke: Record<string, unknown> = { anthropic_version: BEDROCK_ANTHROPIC_VERSION };
  const asked = betaList(betas);
  if (asked.length > 0 && rest.anthropic_beta === undefined) invoke.anthropic_beta = asked;
  return Object.assign(invoke, rest);
}

/** `anthropic-beta: a, b` → `["a", "b"]`. */
function betaList(header: string | undefined): string[] {
  return header === undefined ? [] : header.split(',').map((beta) => beta.trim()).filter((beta) => beta !== '');
}

/** How the invoke's answer comes back as the messages API's: the JSON as it is, the stream as its events, errors in its shape. */
export function messagesInvokeResponse(provider: string, streamed: boolean): ResponseMapping {
  return { provider, ...(streamed ? { stream: () => new InvokeMessagesStream() } : {}), error: messagesErrorOfCloudc };
}

/** CountTokens's `{"inputTokens": n}` as the messages API's count, `{"input_tokens": n}`; errors in its shape. */
export function messagesCountResponse(provider: string): ResponseMapping {
  return {
    provider,
    json: (answer) => {
      const counted = (answer as { inputTokens?: unknown } | null)?.inputTokens;
      if (typeof counted !== 'number') throw new Error('no inputTokens');
      return { input_tokens: counted };
    },
    error: messagesErrorOfCloudc,
  };
}

/** Cloud C's error (`{"message"}`, its type in `x-amzn-errortype`) in the messages API's shape. */
function messagesErrorOfCloudc(status: number, body: Buffer, headers: Readonly<Record<string, string | string[]>>): unknown {
  const json = jsonObjectOf(body);
  const said = json?.message ?? json?.Message;
  const message = typeof said === 'string' && said !== '' ? said : UNSAID_ERROR;
  const type = errorTypeOf(headers);
  return messagesError(status, type === null ? message : `${type}: ${message}`);
}

/** One server-sent event of the messages API's stream. */
function sse(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * invoke-with-response-stream's binary event stream → the messages API's server-sent events: each
 * `chunk` event's base64 `bytes` is one event, sent under its own `type` (the service's invocation
 * metrics, which it adds to the last, left out). An exception ends the stream with the API's `error`
 * event; a stream that ends before `message_stop` ends with one too, as one cut short.
 */
export class InvokeMessagesStream implements StreamMapper {
  readonly #decoder = new EventStreamDecoder();
  #stopped = false;
  #failed = false;

  push(chunk: Buffer): string {
    if (this.#failed) return '';
    let messages: EventMessage[];
    try {
      messages = this.#decoder.push(chunk);
    } catch (error) {
      return this.#fail(500, `The provider stream broke: corrupt event stream${error instanceof EventStreamError ? ` (${error.message})` : ''}.`);
    }
    let out = '';
    for (const message of messages) {
      if (this.#failed) break;
      out += this.#message(message);
    }
    return out;
  }

  end(): string {
    if (this.#failed) return '';
    if (!this.#stopped || this.#decoder.pending > 0) return this.#fail(500, 'The provider stream broke: it ended before message_stop.');
    return '';
  }

  /** The log reads the usage from the events themselves (the messages dialect), as for the messages API's own stream. */
  usage(): null {
    return null;
  }

  #message(message: EventMessage): string {
    const exception = exceptionOf(message);
    if (exception !== null) return this.#fail(statusOfException(exception.type), `${exception.type}: ${exception.text}`);
    const event = ownStreamEventOf(message, true).json;
    if (event === null || typeof event.type !== 'string') return '';
    if (event.type === 'message_stop') this.#stopped = true;
    const { [INVOCATION_METRICS]: _metrics, ...own } = event;
    return sse(event.type, own);
  }

  #fail(status: number, message: string): string {
    this.#failed = true;
    return sse('error', messagesError(status, message));
  }
}
