// The messages API's create call (`POST /v1/messages`, `?beta=true` as its SDK's beta client and the
// coding agents send it) to a `cloudb` target: a Claude model's rawPredict (streamRawPredict for
// `"stream": true`), which takes the same body and answers the same message and server-sent events;
// its token count (`/v1/messages/count_tokens`) cloud B's count-tokens rawPredict, which answers the
// same count.
// So a messages client reaches Claude on cloud B too, and a fallback from an `anthropic` target to a
// `cloudb` one serves one body (the target's `override_params.model` names the model as cloud B
// does, `claude-sonnet-4-5@20250929`). What differs is put right here: the model goes into the URL,
// the API version into the body (`anthropic_version`); betas the route forwards go as the
// `anthropic-beta` header, as cloud B takes them; the platform's errors come back in the messages
// API's shape (Claude's own already are).
import { jsonObjectOf } from '../shared/errors.ts';
import { type CloudModels, isMessagesError, messagesCreateOf, messagesError } from '../shared/messages-call.ts';
import type { ResponseMapping } from '../types.ts';
import { UNSAID_ERROR } from '../shared/error-answer.ts';

/** The body's API version, which cloud B requires in place of the `anthropic-version` header. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/** A Claude model on cloud B: `claude-sonnet-4-5@20250929`, `claude-opus-4-1`. */
export const CLAUDE_PUBLISHER_MODEL = /^claude-/;

const CLAUDE_ON_CLOUDB: CloudModels = { test: (model) => CLAUDE_PUBLISHER_MODEL.test(model), named: 'claude-…, such as claude-sonnet-4-5@20250929', operation: 'rawPredict' };

/** The rawPredict a messages create call becomes on cloud B. */
export interface MessagesRawPredict {
  /** The publisher model's path below a location: `/publishers/anthropic/models/{model}:rawPredict` or `:streamRawPredict`. */
  path: string;
  body: Buffer;
  streamed: boolean;
}

/**
 * The rawPredict of a messages create call (shared/messages-call.ts reads it and checks the model):
 * the body without `model`, with `anthropic_version`; `"stream": true` stays, as streamRawPredict wants it.
 */
export function messagesRawPredictOf(path: string, body: unknown, provider: string): MessagesRawPredict {
  const { model, streamed, rest } = messagesCreateOf(path, body, provider, CLAUDE_ON_CLOUDB);
  const sent = { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest, ...(streamed ? { stream: true } : {}) };
  // `@` names the model's version and is sent as it is, as cloud B's own clients send it.
  const name = encodeURIComponent(model).replaceAll('%40', '@');
  return { path: `/publishers/anthropic/models/${name}:${streamed ? 'streamRawPredict' : 'rawPredict'}`, body: Buffer.from(JSON.stringify(sent)), streamed };
}

/**
 * The rawPredict of a messages token count: cloud B counts on one resource for every Claude model,
 * `count-tokens`, whose body names the model (as the messages API's count does), with the version.
 */
export function messagesCountOf(path: string, body: unknown, provider: string): { path: string; body: Buffer } {
  const { model, rest } = messagesCreateOf(path, body, provider, CLAUDE_ON_CLOUDB);
  return { path: '/publishers/anthropic/models/count-tokens:rawPredict', body: Buffer.from(JSON.stringify({ anthropic_version: VERTEX_ANTHROPIC_VERSION, model, ...rest })) };
}

/** The answer is the messages API's already, stream or not (a count too); the platform's errors (`{"error": {"code", "message", "status"}}`) are put in its shape. */
export function messagesRawPredictResponse(provider: string, observe: (status: number) => void): ResponseMapping {
  return {
    provider,
    observe,
    error: (status, body) => {
      const json = jsonObjectOf(body);
      if (isMessagesError(json)) return json;
      const error = json?.error as { message?: unknown; status?: unknown } | undefined;
      const said = typeof error?.message === 'string' && error.message !== '' ? error.message : UNSAID_ERROR;
      return messagesError(status, typeof error?.status === 'string' ? `${error.status}: ${said}` : said);
    },
  };
}
