// What the hook stages read a request and an answer with (run-hooks.ts `PhaseBody`): the gateway's
// own endpoints by their kind (hook-text.ts), a family's own chat API through the pass-through in its
// dialect (own-text/), any other pass-through unread; and an answer read whole, JSON or a stream held
// in its framing, with the way back to its bytes once the checks rewrote it.
import { parseJson } from '../../../compiler/config/json-parse.ts';
import { EVENT_STREAM_TYPE } from '../../providers/cloudc/stream.ts';
import type { UpstreamResponse } from '../../upstream/types.ts';
import type { Exchange } from '../exchange.ts';
import { passThroughDialect, streamsJsonArray, type TextDialect } from '../metered-pass-through.ts';
import { holdStream, rewrittenStream } from './held-stream.ts';
import { answerText, NO_OTHER_TEXTS, otherAnswerTexts, requestText, rewriteAnswer, rewriteRequest, unreadableRequestText } from './hook-text.ts';
import { CORRUPT_STREAM, holdOwnStream, type OwnFraming } from './own-text/own-held-stream.ts';
import { OWN_ANSWER_BODY, OWN_REQUEST_BODY } from './own-text/own-texts.ts';
import type { PhaseBody } from './run-hooks.ts';
import { isEventStreamType } from '../../core/event-stream-type.ts';

const REQUEST_BODY: Record<string, PhaseBody> = {};
export const ANSWER_BODY: Record<string, PhaseBody> = {};
for (const endpoint of ['chat', 'completions', 'embeddings', 'audio', 'images', 'models', 'passthrough'] as const) {
  REQUEST_BODY[endpoint] = { textOf: (body) => requestText(endpoint, body), otherTexts: () => NO_OTHER_TEXTS, unreadable: (body) => unreadableRequestText(endpoint, body), rewrite: (body, t) => rewriteRequest(endpoint, body, t) };
  ANSWER_BODY[endpoint] = { textOf: (body) => answerText(endpoint, body), otherTexts: (body) => otherAnswerTexts(endpoint, body), unreadable: () => null, rewrite: (body, t) => rewriteAnswer(endpoint, body, t) };
}

// A pass-through request's body and answer (a path the gateway has no route for: an Assistants
// message, a vendor's own endpoint) are in the provider's own shapes, where no check knows which part
// is the text: read as "", they passed every deny rule and every redaction. Checks that read text fail
// on them unjudged instead (a deny rule denies), as on token ids; checks of what is around the text
// judge them as usual. A family's own chat API (the messages API, generateContent, converse) is the
// exception: its shapes are known, and it is read and rewritten in its dialect (own-text/). The
// Files, Batches and Fine-tuning calls the gateway forwards are its own routes, whose shapes it
// knows: they hold no prompt (a batch's lines are judged as the gateway runs them on such a route).
const PASSED_ON_REQUEST: PhaseBody = { ...REQUEST_BODY.passthrough, unreadable: () => 'a pass-through request\'s body is in the provider\'s own shape, where no check can tell the text; not judged' };
export const PASSED_ON_ANSWER: PhaseBody = { ...ANSWER_BODY.passthrough, unreadable: () => 'a pass-through answer is in the provider\'s own shape, where no check can tell the text; not judged' };

/** A request to a path the gateway has no route of its own for: the pass-through proper, not a forwarded Files call. */
export function passedOn(x: Exchange): boolean {
  return x.record.routeKind === 'passthrough';
}

/**
 * What a request is judged with: a pass-through call of a family's own chat API (the messages API,
 * generateContent, converse) in its dialect, whatever target serves it (the body is what the client
 * wrote for that API); any other pass-through body unread.
 */
export function requestBodyOf(x: Exchange): PhaseBody {
  if (!passedOn(x) || x.rawBody === null || x.rawBody.length === 0) return REQUEST_BODY[x.endpoint];
  const dialect = passThroughDialect(x);
  return dialect === null ? PASSED_ON_REQUEST : OWN_REQUEST_BODY[dialect];
}

/** An answer read whole for its checks. */
export interface ReadAnswer {
  /** The answer as the checks judge it (a stream's: the whole answer it stands for). */
  answer: unknown;
  /** How the checks read it. */
  io: PhaseBody;
  /** The answer's bytes with the texts of `judged` (the answer as the checks left it). */
  bytesOf(judged: unknown): Buffer;
  /** A JSON body, which the request stage adds `hook_results` to from the bytes kept here. */
  json: boolean;
}

/** An answer of the gateway's own endpoints: JSON, a held SSE stream, or a transcription's plain text. */
export function gatewayAnswer(x: Exchange, response: UpstreamResponse, bytes: Buffer, stream: boolean): ReadAnswer {
  const io = ANSWER_BODY[x.endpoint];
  if (stream) {
    const held = holdStream(x.endpoint, bytes);
    return { answer: held.answer, io, bytesOf: (judged) => rewrittenStream(x.endpoint, held, judged), json: false };
  }
  // A transcription asked for as text (`text`, `srt`, `vtt`) is its text alone.
  if (x.endpoint === 'audio' && !isJsonType(response.headers['content-type'])) {
    return { answer: { text: bytes.toString('utf8') }, io, bytesOf: (judged) => Buffer.from(answerText(x.endpoint, judged)), json: false };
  }
  return { answer: jsonAnswer(bytes), io, bytesOf: (judged) => Buffer.from(JSON.stringify(judged)), json: true };
}

/**
 * An answer of a family's own chat API through the pass-through, in its dialect: a stream in its
 * framing (SSE, AWS's event stream), JSON, or the JSON array generateContent streams without alt=sse.
 */
export function ownAnswer(dialect: TextDialect, framing: OwnFraming | null, bytes: Buffer): ReadAnswer {
  const io = OWN_ANSWER_BODY[dialect];
  const held = framing === null ? null : holdOwnStream(dialect, framing, bytes);
  if (held !== null) return { answer: held.answer, io, bytesOf: (judged) => held.rewritten(judged), json: false };
  if (framing === 'sse' || framing === 'event-stream') return { answer: null, io: CORRUPT_ANSWER, bytesOf: () => bytes, json: false };
  // JSON, or a streamGenerateContent answer that was not the array it streams as (an object, not JSON).
  return { answer: jsonAnswer(bytes), io, bytesOf: (judged) => Buffer.from(JSON.stringify(judged)), json: true };
}

/** A family's own answer without text: a token count's counts, cloud B's embeddings (judged as the `""` they hold). */
export function textlessAnswer(bytes: Buffer): ReadAnswer {
  return { answer: jsonAnswer(bytes), io: ANSWER_BODY.models, bytesOf: (judged) => Buffer.from(JSON.stringify(judged)), json: true };
}

/** How a family's own answer is framed: a stream's framing, or null for a JSON answer. */
export function ownFraming(x: Exchange, contentType: unknown): OwnFraming | null {
  if (typeof contentType !== 'string') return null;
  if (isEventStreamType(contentType)) return 'sse';
  if (EVENT_STREAM_TYPE.test(contentType)) return 'event-stream';
  return streamsJsonArray(x) ? 'array' : null;
}

/** A stream whose framing is broken: its text checks fail unjudged. */
const CORRUPT_ANSWER: PhaseBody = { ...ANSWER_BODY.passthrough, unreadable: () => CORRUPT_STREAM };

/** A JSON answer's value; null when it is not JSON although it says so (judged as an answer without text). */
function jsonAnswer(bytes: Buffer): unknown {
  try {
    return parseJson(bytes.toString('utf8'));
  } catch {
    return null;
  }
}

export function isJsonType(contentType: unknown): boolean {
  return typeof contentType === 'string' && contentType.startsWith('application/json');
}
