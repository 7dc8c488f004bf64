// Each family's own chat dialect's text reader and writer, and each format of another model's invoke
// the gateway reads, by dialect, and the bodies the hook stage judges a request and an answer in that
// dialect with (and a request of cloud B's embeddings and image generation).
import type { OwnReading, TextDialect } from '../../metered-pass-through.ts';
import type { TextTransform } from '../check.ts';
import { NO_OTHER_TEXTS, type Rewritten } from '../hook-text.ts';
import type { PhaseBody } from '../run-hooks.ts';
import { parseJson } from '../../../../compiler/config/json-parse.ts';
import { converseText } from './converse.ts';
import { generateContentText } from './generate-content.ts';
import { deepseekText, llamaText, titanText } from './invoke-completions.ts';
import { mistralText } from './invoke-mistral.ts';
import { novaText } from './invoke-nova.ts';
import { openaiChatText } from './invoke-openai-chat.ts';
import { messagesText } from './messages.ts';
import { type Apply, isObject, type Json, NOT_AN_OBJECT, type OwnText } from './own-text.ts';
import { IMAGE_PREDICT_REQUEST_BODY, PREDICT_REQUEST_BODY } from './predict.ts';

export const OWN_TEXTS: Record<TextDialect, OwnText> = {
  messages: messagesText,
  generateContent: generateContentText,
  converse: converseText,
  nova: novaText,
  titan: titanText,
  llama: llamaText,
  mistral: mistralText,
  openaiChat: openaiChatText,
  deepseek: deepseekText,
};

function requestBody(text: OwnText): PhaseBody {
  return {
    textOf: (body) => (isObject(body) ? text.requestText(body) : ''),
    otherTexts: () => NO_OTHER_TEXTS,
    unreadable: (body) => (isObject(body) ? text.unreadable?.(body) ?? null : NOT_AN_OBJECT),
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

/** Why cloud C's token count of another model's invoke body is not read: the body is its model vendor's own format, in base64. */
const INVOKE_COUNT = 'a token count of an invoke body is in its model vendor\'s own format, where no check can tell the text; not judged';
/** Why a Claude model's count of an invoke body is not read: its base64 does not hold the messages API's JSON object. */
const BAD_INVOKE_COUNT = 'a token count\'s invoke body is not base64 of the JSON object its API takes, where no check can tell the text; not judged';

/** The body cloud C's token count wraps: a converse body, or (`invokeModel.body`, base64) an invoke body and the member holding it. */
export type Counted = { dialect: 'converse'; body: Json } | { dialect: 'messages'; body: Json; invokeModel: Json };

/**
 * What cloud C's token count counts: `{"input": {"converse": …}}`, or, of a Claude model (whose invoke
 * speaks the messages API), `{"input": {"invokeModel": {"body": <base64 of its JSON>}}}`; null for
 * another form (another model's invoke body, base64 that holds no JSON object).
 */
export function countedOf(body: unknown, claude: boolean): Counted | null {
  const input = isObject(body) ? body.input : undefined;
  if (!isObject(input)) return null;
  if (isObject(input.converse)) return { dialect: 'converse', body: input.converse };
  const invokeModel = input.invokeModel;
  if (!claude || !isObject(invokeModel) || typeof invokeModel.body !== 'string') return null;
  try {
    const invoked = parseJson(Buffer.from(invokeModel.body, 'base64').toString('utf8'));
    return isObject(invoked) ? { dialect: 'messages', body: invoked, invokeModel } : null;
  } catch {
    return null;
  }
}

/**
 * Cloud C's token count: the body it counts is read and rewritten in its dialect (converse's, or a
 * Claude model's invoke body as the messages API's), and wrapped again (an invoke body in base64).
 */
function countBody(claude: boolean): PhaseBody {
  return {
    textOf: (body) => {
      const inner = countedOf(body, claude);
      return inner === null ? '' : OWN_TEXTS[inner.dialect].requestText(inner.body);
    },
    otherTexts: () => NO_OTHER_TEXTS,
    unreadable: (body) => (countedOf(body, claude) !== null ? null : !isObject(body) ? NOT_AN_OBJECT : claude && isObject(body.input) && isObject(body.input.invokeModel) ? BAD_INVOKE_COUNT : INVOKE_COUNT),
    rewrite: (body, transform) => {
      const inner = countedOf(body, claude);
      if (inner === null) return { value: body, found: 0 };
      const { value, found } = counted(inner.body, transform, OWN_TEXTS[inner.dialect].rewriteRequest);
      return found === 0 ? { value: body, found } : { value: wrappedAgain(body as Json, inner, value as Json), found };
    },
  };
}

/** Cloud C's token count `wrapper` with the body it counts (`inner`, read by countedOf) replaced by `value`, an invoke body in base64 again. */
export function wrappedAgain(wrapper: Json, inner: Counted, value: Json): Json {
  const input = wrapper.input as Json;
  const rewritten = inner.dialect === 'converse'
    ? { ...input, converse: value }
    : { ...input, invokeModel: { ...inner.invokeModel, body: Buffer.from(JSON.stringify(value)).toString('base64') } };
  return { ...wrapper, input: rewritten };
}

const TEXT_DIALECTS = Object.keys(OWN_TEXTS) as TextDialect[];

export const OWN_REQUEST_BODY: Record<OwnReading, PhaseBody> = {
  ...(Object.fromEntries(TEXT_DIALECTS.map((dialect) => [dialect, requestBody(OWN_TEXTS[dialect])])) as Record<TextDialect, PhaseBody>),
  converseCount: countBody(false),
  claudeCount: countBody(true),
  predict: PREDICT_REQUEST_BODY,
  imagePredict: IMAGE_PREDICT_REQUEST_BODY,
};

export const OWN_ANSWER_BODY = Object.fromEntries(TEXT_DIALECTS.map((dialect) => [dialect, answerBody(OWN_TEXTS[dialect])])) as Record<TextDialect, PhaseBody>;
