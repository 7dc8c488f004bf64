// Each family's own chat dialect's text reader and writer, by dialect, and the bodies the hook
// stage judges a request and an answer in that dialect with (and a request of cloud B's embeddings).
import type { OwnDialect, OwnReading } from '../../metered-pass-through.ts';
import type { TextTransform } from '../check.ts';
import { NO_OTHER_TEXTS, type Rewritten } from '../hook-text.ts';
import type { PhaseBody } from '../run-hooks.ts';
import { converseText } from './converse.ts';
import { generateContentText } from './generate-content.ts';
import { messagesText } from './messages.ts';
import { type Apply, isObject, type Json, NOT_AN_OBJECT, type OwnText } from './own-text.ts';
import { PREDICT_REQUEST_BODY } from './predict.ts';

export const OWN_TEXTS: Record<OwnDialect, OwnText> = {
  messages: messagesText,
  generateContent: generateContentText,
  converse: converseText,
};

function requestBody(text: OwnText): PhaseBody {
  return {
    textOf: (body) => (isObject(body) ? text.requestText(body) : ''),
    otherTexts: () => NO_OTHER_TEXTS,
    unreadable: (body) => (isObject(body) ? null : NOT_AN_OBJECT),
    rewrite: (body, transform) => counted(body, transform, text.rewriteRequest),
  };
}

function answerBody(text: OwnText): PhaseBody {
  return {
    textOf: (body) => (isObject(body) ? text.answerTexts(body)[0]?.text ?? '' : ''),
    otherTexts: (body) => (isObject(body) ? text.answerTexts(body).slice(1) : NO_OTHER_TEXTS),
    unreadable: () => null,
    rewrite: (body, transform) => counted(body, transform, text.rewriteAnswer),
  };
}

/** `body` rewritten by `rewrite` with `transform`, and what it found: `body` itself when it found nothing. */
function counted(body: unknown, transform: TextTransform, rewrite: (body: Json, apply: Apply) => Json): Rewritten {
  if (!isObject(body)) return { value: body, found: 0 };
  let found = 0;
  const value = rewrite(body, (text) => {
    const out = transform(text);
    found += out.found;
    return out.text;
  });
  return found === 0 ? { value: body, found } : { value, found };
}

/** Why cloud C's token count of an invoke body is not read: the body is its model vendor's own format, in base64. */
const INVOKE_COUNT = 'a token count of an invoke body is in its model vendor\'s own format, where no check can tell the text; not judged';

/** The converse body cloud C's token count wraps (`{"input": {"converse": …}}`), or null for another form. */
function converseOf(body: unknown): Json | null {
  const input = isObject(body) ? body.input : undefined;
  return isObject(input) && isObject(input.converse) ? input.converse : null;
}

/** Cloud C's token count: the converse body it wraps is read and rewritten as converse's, and wrapped again. */
const CONVERSE_COUNT_BODY: PhaseBody = {
  textOf: (body) => {
    const converse = converseOf(body);
    return converse === null ? '' : converseText.requestText(converse);
  },
  otherTexts: () => NO_OTHER_TEXTS,
  unreadable: (body) => (converseOf(body) === null ? (isObject(body) ? INVOKE_COUNT : NOT_AN_OBJECT) : null),
  rewrite: (body, transform) => {
    const converse = converseOf(body);
    if (converse === null) return { value: body, found: 0 };
    const { value, found } = counted(converse, transform, converseText.rewriteRequest);
    if (found === 0) return { value: body, found };
    const wrapper = body as Json;
    return { value: { ...wrapper, input: { ...(wrapper.input as Json), converse: value } }, found };
  },
};

export const OWN_REQUEST_BODY: Record<OwnReading, PhaseBody> = {
  messages: requestBody(messagesText),
  generateContent: requestBody(generateContentText),
  converse: requestBody(converseText),
  converseCount: CONVERSE_COUNT_BODY,
  predict: PREDICT_REQUEST_BODY,
};

export const OWN_ANSWER_BODY: Record<OwnDialect, PhaseBody> = {
  messages: answerBody(messagesText),
  generateContent: answerBody(generateContentText),
  converse: answerBody(converseText),
};
