// The messages API's create call (`POST /v1/messages`, `?beta=true` as its SDK's beta client and the
// coding agents send it) to a `cloudc` target: a Claude model's invoke, which takes the same body
// and answers the same message. So one body reaches Claude through the messages API or through cloud
// C, and a fallback from an `anthropic` target to a `cloudc` one works for a messages client (the
// target's `override_params.model` names the model as cloud C does). What differs is put right here:
// the model goes into the path and `stream` chooses invoke-with-response-stream; the API version is
// the body's `anthropic_version`; betas the route forwards (`anthropic-beta`) go in the body's
// `anthropic_beta`; a stream's events come back from the binary event stream's `chunk` events as the
// server-sent events the messages API sends; errors come back in the messages API's error shape.
import { GatewayError } from '../../core/errors.ts';
import { jsonObjectOf } from '../shared/errors.ts';
import type { ResponseMapping, StreamMapper } from '../types.ts';
import { EventStreamDecoder, EventStreamError, type EventMessage } from './event-stream.ts';
import { INVOCATION_METRICS, ownStreamEventOf } from './own-stream-events.ts';
import { CLAUDE_MODEL } from './request.ts';
import { errorTypeOf, statusOfException } from './response.ts';
import { exceptionOf } from './stream.ts';
import { UNSAID_ERROR } from '../shared/error-answer.ts';

/** The invoke body's API version, which cloud C requires in place of the `anthropic-version` header. */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/** The create call, with the query the beta client adds (and nothing else: the gateway makes the invoke's URL). */
const CREATE_PATH = /^\/messages(?:\?(.*))?$/;

/** The invoke a messages create call becomes on cloud C. */
export interface MessagesInvoke {
  /** `/model/{id}/invoke` or `/invoke-with-response-stream`. */
  path: string;
  body: Buffer;
  streamed: boolean;
}

/** Whether a pass-through call is the messages API's create call. */
export function isMessagesCreate(method: string, path: string): boolean {
  return method === 'POST' && CREATE_PATH.test(path);
}

/**
 * The invoke of a messages create call: `body` (override_params applied) without `model` and
 * `stream`, with `anthropic_version`, and the betas `anthropic-beta` names (where the route forwards
 * it) as `anthropic_beta`. A model that is not a Claude model ID of cloud C is refused: another
 * model's invoke takes its own vendor's body, and a messages API name (`claude-sonnet-4-5`) is no
 * model ID there.
 */
export function messagesInvokeOf(path: string, rawBody: Buffer | null, betas: string | undefined, provider: string): MessagesInvoke {
  const query = CREATE_PATH.exec(path)?.[1];
  if (query !== undefined && query !== '' && query !== 'beta=true') {
    const name = new URLSearchParams(query).keys().next().value ?? '';
    throw new GatewayError('unsupported_parameter', `The provider "${provider}" answers the messages API's create call through its invoke, whose URL the gateway makes: the query parameter "${name}" cannot be sent to it.`, name);
  }
  const body = rawBody === null ? null : jsonObjectOf(rawBody);
  if (body === null) throw new GatewayError('invalid_request_body', 'Invalid request body: the messages API takes a JSON object.');
  const { model, stream, ...rest } = body;
  if (typeof model !== 'string' || model === '') throw new GatewayError('invalid_request_body', 'Invalid request body: model must be a non-empty string.', '/model');
  if (!CLAUDE_MODEL.test(model)) {
    throw new GatewayError('invalid_request_body',
      `Invalid request body: the provider "${provider}" answers the messages API's create call with a Claude model's invoke, and "${model}" is not a Claude model ID there (anthropic.claude-…, or an inference profile such as us.anthropic.claude-…): name one, for example in the target's override_params.model.`,
      '/model');
  }
  if (stream !== undefined && typeof stream !== 'boolean') throw new GatewayError('invalid_request_body', 'Invalid request body: stream must be a boolean.', '/stream');
  const streamed = stream === true;
  const invoke: Record<string, unknown> = { anthropic_version: BEDROCK_ANTHROPIC_VERSION };
  const asked = betaList(betas);
  if (asked.length > 0 && rest.anthropic_beta === undefined) invoke.anthropic_beta = asked;
  Object.assign(invoke, rest);
  return { path: `/model/${encodeURIComponent(model)}/${streamed ? 'invoke-with-response-stream' : 'invoke'}`, body: Buffer.from(JSON.stringify(invoke)), streamed };
}

/** `anthropic-beta: a, b` → `["a", "b"]`. */
function betaList(header: string | undefined): string[] {
  return header === undefined ? [] : header.split(',').map((beta) => beta.trim()).filter((beta) => beta !== '');
}

/** How the invoke's answer comes back as the messages API's: the JSON as it is, the stream as its events, errors in its shape. */
export function messagesInvokeResponse(provider: string, streamed: boolean): ResponseMapping {
  return {
    provider,
    ...(streamed ? { stream: () => new InvokeMessagesStream() } : {}),
    error: (status, body, headers) => {
      const json = jsonObjectOf(body);
      const said = json?.message ?? json?.Message;
      const message = typeof said === 'string' && said !== '' ? said : UNSAID_ERROR;
      return messagesError(status, errorTypeOf(headers) === null ? message : `${errorTypeOf(headers)}: ${message}`);
    },
  };
}

/** The messages API's error body for a status, by the types it documents. */
export function messagesError(status: number, message: string): { type: 'error'; error: { type: string; message: string } } {
  return { type: 'error', error: { type: messagesErrorType(status), message } };
}

function messagesErrorType(status: number): string {
  switch (status) {
    case 401: return 'authentication_error';
    case 403: return 'permission_error';
    case 404: return 'not_found_error';
    case 413: return 'request_too_large';
    case 429: return 'rate_limit_error';
    case 408: case 504: return 'timeout_error';
    case 503: case 529: return 'overloaded_error';
    default: return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
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
