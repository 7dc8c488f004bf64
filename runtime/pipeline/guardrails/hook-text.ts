// What hooks read and what transformers rewrite (ARCHITECTURE §5). Checks judge one text: before the
// request the last user message, the prompt (of a completion, an image, a transcription), the
// embedding input or the text to speak; after it each choice's content
// (or a spoken answer's transcript), every choice judged, so a client asking for `n` answers gets no
// unjudged one. Transformers (regexReplace, piiRedact, a webhook's text)
// rewrite every text: all messages' contents and text parts (an earlier answer's reasoning and
// refusal sent back among them), every prompt or input string, every
// choice of an answer (its reasoning and refusal too; its log probabilities, which spell the tokens
// replaced, are dropped), so no copy of a redacted value slips past in an earlier message, a second
// choice or the model's reasoning. A transcription's text is judged, and rewritten with its segments.
// A spoken answer's audio says what its transcript does and no transformer can rewrite it, so
// a transformer that finds something in a transcript fails rather than pass the audio on.
import { isTextPart, spokenTranscript, textOf, WRITTEN_TEXT_MEMBERS } from '../../providers/shared/chat.ts';
import type { EndpointKind } from '../../providers/types.ts';
import type { TextTransform } from './check.ts';
import { isJsonObject } from '../../core/json-object.ts';

type Json = Record<string, unknown>;

/**
 * The member of a request that holds its text: a completion's or an image's `prompt`, an embedding's
 * `input`, the text a speech request speaks (`input`) or a transcription's `prompt`; null for other
 * endpoints (chat has messages).
 */
function textField(endpoint: EndpointKind, params: Json): 'prompt' | 'input' | null {
  switch (endpoint) {
    case 'completions':
    case 'images':
      return 'prompt';
    case 'embeddings':
      return 'input';
    case 'audio':
      return typeof params.input === 'string' ? 'input' : 'prompt';
    default:
      return null;
  }
}

/** Where a request's text may be token ids (numbers only a tokenizer reads). */
const TOKEN_ID_FIELDS: Partial<Record<EndpointKind, 'prompt' | 'input'>> = { completions: 'prompt', embeddings: 'input' };

function joinedStrings(value: unknown): string {
  if (typeof value === 'string') return value;
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string').join('\n') : '';
}

export function requestText(endpoint: EndpointKind, params: unknown): string {
  if (!isJsonObject(params)) return '';
  if (endpoint === 'chat' && Array.isArray(params.messages)) {
    for (let i = params.messages.length - 1; i >= 0; i--) {
      const message = params.messages[i];
      if (isJsonObject(message) && message.role === 'user') return textOf(message.content);
    }
    return '';
  }
  const field = textField(endpoint, params);
  return field === null ? '' : joinedStrings(params[field]);
}

/**
 * Why the request has text checks cannot read, or null: a prompt (completions) or an input
 * (embeddings) given as token ids, which only the model's tokenizer could turn back into text. Judged
 * as "" such a request would pass every deny rule on its text, so its text checks fail instead.
 */
export function unreadableRequestText(endpoint: EndpointKind, params: unknown): string | null {
  const field = TOKEN_ID_FIELDS[endpoint];
  if (!isJsonObject(params) || field === undefined) return null;
  const value = params[field];
  const tokenIds = typeof value === 'number' || (Array.isArray(value) && value.some((v) => typeof v === 'number' || Array.isArray(v)));
  return tokenIds ? `the ${field} is token ids, which no check can read as text; not judged` : null;
}

/** No other texts: a request's, and a one-choice answer's (one array for all of them). */
export const NO_OTHER_TEXTS: ReadonlyArray<{ label: string; text: string }> = [];

/**
 * The text checks judge of an answer: its first choice's (otherAnswerTexts gives the others); a
 * transcription's or translation's text (the only audio answers judged: a speech answer is audio).
 */
export function answerText(endpoint: EndpointKind, answer: unknown): string {
  if (endpoint === 'audio') return isJsonObject(answer) && typeof answer.text === 'string' ? answer.text : '';
  if (!isJsonObject(answer) || !Array.isArray(answer.choices)) return '';
  return choiceText(endpoint, answer.choices[0]);
}

/** Each choice's text after the first, named for check explanations (`choice 1`). */
export function otherAnswerTexts(endpoint: EndpointKind, answer: unknown): ReadonlyArray<{ label: string; text: string }> {
  if (!isJsonObject(answer) || !Array.isArray(answer.choices) || answer.choices.length < 2) return NO_OTHER_TEXTS;
  return answer.choices.slice(1).map((choice, at) => ({ label: `choice ${isJsonObject(choice) && typeof choice.index === 'number' ? choice.index : at + 1}`, text: choiceText(endpoint, choice) }));
}

/** One choice's text: a chat message's content (a spoken answer's transcript when it has none), or a completion's text. */
export function choiceText(endpoint: EndpointKind, choice: unknown): string {
  if (!isJsonObject(choice)) return '';
  if (endpoint === 'chat') {
    if (!isJsonObject(choice.message)) return '';
    const text = textOf(choice.message.content);
    // A spoken answer (`modalities` with audio) has no content: its words are its transcript.
    return text === '' ? (spokenTranscript(choice.message) ?? '') : text;
  }
  if (endpoint === 'completions') return typeof choice.text === 'string' ? choice.text : '';
  return '';
}

export interface Rewritten {
  value: unknown;
  found: number;
}

/** The request with `transform` applied to every text (a new object when anything changed). */
export function rewriteRequest(endpoint: EndpointKind, params: unknown, transform: TextTransform): Rewritten {
  if (!isJsonObject(params)) return { value: params, found: 0 };
  let found = 0;
  const apply = (text: string): string => {
    const out = transform(text);
    found += out.found;
    return out.text;
  };
  if (endpoint === 'chat' && Array.isArray(params.messages)) {
    const messages = params.messages.map((message) => (isJsonObject(message) ? withWrittenText({ ...message, content: rewriteContent(message.content, apply) }, apply) : message));
    return found === 0 ? { value: params, found } : { value: { ...params, messages }, found };
  }
  const field = textField(endpoint, params);
  if (field === null) return { value: params, found: 0 };
  const rewritten = rewriteStrings(params[field], apply);
  return found === 0 ? { value: params, found } : { value: { ...params, [field]: rewritten }, found };
}

/** The answer with `transform` applied to every choice's text (a transcription's: its text and segments). */
export function rewriteAnswer(endpoint: EndpointKind, answer: unknown, transform: TextTransform): Rewritten {
  if (endpoint === 'audio') return isJsonObject(answer) ? rewriteTranscription(answer, transform) : { value: answer, found: 0 };
  if (!isJsonObject(answer) || !Array.isArray(answer.choices)) return { value: answer, found: 0 };
  let found = 0;
  const apply = (text: string): string => {
    const out = transform(text);
    found += out.found;
    return out.text;
  };
  const choices = answer.choices.map((choice) => {
    if (!isJsonObject(choice)) return choice;
    const before = found;
    let rewritten = choice;
    if (endpoint === 'chat' && isJsonObject(choice.message)) {
      const transcript = spokenTranscript(choice.message);
      if (transcript !== null && transform(transcript).found > 0) throw new Error(SPOKEN_UNREWRITABLE);
      // Reasoning and a refusal are the model's words too: a value redacted from the content must not stay in them.
      rewritten = { ...choice, message: withWrittenText({ ...choice.message, content: rewriteContent(choice.message.content, apply) }, apply) };
    } else if (endpoint === 'completions' && typeof choice.text === 'string') rewritten = { ...choice, text: apply(choice.text) };
    if (found === before) return choice;
    // A choice's log probabilities list the tokens the model wrote, the replaced ones among them.
    return rewritten.logprobs === undefined || rewritten.logprobs === null ? rewritten : { ...rewritten, logprobs: null };
  });
  return found === 0 ? { value: answer, found } : { value: { ...answer, choices }, found };
}

/**
 * A transcription (or translation) with its text rewritten, and each of its segments' (the same words
 * with their times). What spells the words token by token cannot be rewritten, so once something was
 * replaced it is dropped: the log probabilities, the word timings, a rewritten segment's token ids,
 * and the segments themselves when a replaced value ran across two of them (fewer found in the
 * segments than in the text). `found` counts the text's finds.
 */
function rewriteTranscription(answer: Json, transform: TextTransform): Rewritten {
  if (typeof answer.text !== 'string') return { value: answer, found: 0 };
  const rewritten = transform(answer.text);
  if (rewritten.found === 0) return { value: answer, found: 0 };
  const { logprobs: _logprobs, words: _words, ...rest } = answer;
  const value: Json = { ...rest, text: rewritten.text };
  if (Array.isArray(answer.segments)) {
    let inSegments = 0;
    const segments = answer.segments.map((segment) => {
      if (!isJsonObject(segment) || typeof segment.text !== 'string') return segment;
      const out = transform(segment.text);
      if (out.found === 0) return segment;
      inSegments += out.found;
      return { ...segment, text: out.text, ...(Array.isArray(segment.tokens) ? { tokens: [] } : {}) };
    });
    value.segments = inSegments < rewritten.found ? [] : segments;
  }
  return { value, found: rewritten.found };
}

/** Why a transformer fails on a spoken answer it found something in. */
export const SPOKEN_UNREWRITABLE = 'the answer is spoken: what was found in its transcript is in its audio too, which no transformer can rewrite; not replaced';

/** `message` (a copy) with its reasoning and refusal rewritten: an answer's, or an earlier answer sent back in a request. */
function withWrittenText(message: Json, apply: (text: string) => string): Json {
  for (const member of WRITTEN_TEXT_MEMBERS) if (typeof message[member] === 'string') message[member] = apply(message[member]);
  return message;
}

function rewriteContent(content: unknown, apply: (text: string) => string): unknown {
  if (typeof content === 'string') return apply(content);
  if (!Array.isArray(content)) return content;
  return content.map((part) => (isTextPart(part) ? { ...part, text: apply(part.text) } : part));
}

function rewriteStrings(value: unknown, apply: (text: string) => string): unknown {
  if (typeof value === 'string') return apply(value);
  return Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? apply(v) : v)) : value;
}
