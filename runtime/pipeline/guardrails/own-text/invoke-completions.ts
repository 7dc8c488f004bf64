// The text completion models' invoke on cloud C (which models: runtime/pipeline/metered-pass-through.ts):
// a prompt in, the turns already in the model's own template, and completions out. Titan's text
// models (`inputText`; `results[]`'s `outputText`, streamed one result's piece a chunk, by `index`),
// Llama (`prompt`; one `generation`, streamed the same), Mistral's text completion (`prompt`;
// `outputs[]`'s `text`, streamed as `outputs` of pieces; its chat form: invoke-mistral.ts), DeepSeek-R1 (`prompt`; `choices[]`'s
// `text`, streamed as `choices` of pieces). Checks judge the whole prompt, as a completion's;
// transformers rewrite it and every completion. A body without the prompt (another form the model
// may take) is not read.
import { keepChunkMembers } from '../../../providers/cloudc/own-stream-events.ts';
import { type Apply, isObject, type Json, type OwnStreamReader, type OwnText, type Piece } from './own-text.ts';

/** Where a text completion model's answer and its stream's chunks keep the completions' text. */
interface Completions {
  /** The prompt's member of the request. */
  prompt: string;
  /** The answer's list of completions (`results`), or null for one completion at its top. */
  list: string | null;
  /** A completion's text member. */
  member: string;
  /** How an answer names its completions after the first, in explanations. */
  noun: string;
  /** A chunk's completions: in its own list (Mistral's `outputs`), or the chunk is one, numbered by a member (Titan's `index`) or the only one. */
  chunk: { list: string } | { index: string | null };
}

const TITAN: Completions = { prompt: 'inputText', list: 'results', member: 'outputText', noun: 'result', chunk: { index: 'index' } };
const LLAMA: Completions = { prompt: 'prompt', list: null, member: 'generation', noun: 'generation', chunk: { index: null } };
const MISTRAL: Completions = { prompt: 'prompt', list: 'outputs', member: 'text', noun: 'output', chunk: { list: 'outputs' } };
// Not `choice N`: the chat endpoint names a choice by its `index` (from 0), which these have none of.
const DEEPSEEK: Completions = { prompt: 'prompt', list: 'choices', member: 'text', noun: 'completion', chunk: { list: 'choices' } };

/** The answer's completions (objects; anything else in the list counts, without text, to keep the numbering). */
function completionsOf(shape: Completions, answer: Json): unknown[] {
  if (shape.list === null) return [answer];
  const list = answer[shape.list];
  return Array.isArray(list) ? list : [];
}

function textOf(shape: Completions, completion: unknown): string | null {
  const text = isObject(completion) ? completion[shape.member] : undefined;
  return typeof text === 'string' ? text : null;
}

/** A chunk's completions and their numbers (a number that is not a number counts as the first's: its text is judged all the same). */
function chunkCompletions(shape: Completions, chunk: Json): Array<[number, Json]> {
  if ('list' in shape.chunk) {
    const list = chunk[shape.chunk.list];
    return Array.isArray(list) ? list.flatMap((item: unknown, at): Array<[number, Json]> => (isObject(item) ? [[at, item]] : [])) : [];
  }
  const index = shape.chunk.index === null ? 0 : chunk[shape.chunk.index];
  return [[typeof index === 'number' ? index : 0, chunk]];
}

class CompletionStreamReader implements OwnStreamReader {
  readonly #shape: Completions;
  /** Each completion's text so far and its other members as last sent (a null member does not overwrite), in the order they came. */
  readonly #completions: Json[] = [];
  /** A completion's place in #completions by its number in the chunks (any number: the provider's, never an array size). */
  readonly #places = new Map<number, number>();
  readonly #rest: Json = {};

  constructor(shape: Completions) {
    this.#shape = shape;
  }

  read(event: Json): Piece[] {
    const shape = this.#shape;
    const pieces: Piece[] = [];
    const completions = chunkCompletions(shape, event);
    if (shape.list !== null && 'list' in shape.chunk) keepChunkMembers(this.#rest, event, [shape.chunk.list]);
    for (const [number, completion] of completions) {
      let at = this.#places.get(number);
      if (at === undefined) {
        at = this.#completions.push({ [shape.member]: '' }) - 1;
        this.#places.set(number, at);
      }
      const held = this.#completions[at]!;
      keepChunkMembers(held, completion, [shape.member, 'index']);
      const text = completion[shape.member];
      if (typeof text !== 'string') continue;
      held[shape.member] = `${held[shape.member] as string}${text}`;
      pieces.push({ slot: `${at}:text`, text, primary: true, put: (rewritten) => (completion[shape.member] = rewritten) });
    }
    return pieces;
  }

  answer(): Json {
    if (this.#shape.list !== null) return { ...this.#rest, [this.#shape.list]: this.#completions };
    return this.#completions[0] ?? { [this.#shape.member]: '' };
  }
}

function completionText(shape: Completions): OwnText {
  const unread = `the request's body has no \`${shape.prompt}\` string, the form this model's invoke is read in, where no check can tell the text; not judged`;
  const rewriteCompletion = (completion: unknown, apply: Apply): unknown => {
    const text = textOf(shape, completion);
    return text === null ? completion : { ...(completion as Json), [shape.member]: apply(text) };
  };
  return {
    unreadable: (body) => (typeof body[shape.prompt] === 'string' ? null : unread),
    requestText: (body) => (typeof body[shape.prompt] === 'string' ? (body[shape.prompt] as string) : ''),
    rewriteRequest: (body, apply) => (typeof body[shape.prompt] === 'string' ? { ...body, [shape.prompt]: apply(body[shape.prompt] as string) } : body),
    answerTexts(answer) {
      const completions = completionsOf(shape, answer);
      if (completions.length === 0) return [{ label: '', text: '' }];
      return completions.map((completion, at) => ({ label: at === 0 ? '' : `${shape.noun} ${at + 1}`, text: textOf(shape, completion) ?? '' }));
    },
    rewriteAnswer(answer, apply) {
      if (shape.list === null) return rewriteCompletion(answer, apply) as Json;
      const list = answer[shape.list];
      return Array.isArray(list) ? { ...answer, [shape.list]: list.map((completion: unknown) => rewriteCompletion(completion, apply)) } : answer;
    },
    slots(answer) {
      const slots = new Map<string, string>();
      if (!isObject(answer)) return slots;
      completionsOf(shape, answer).forEach((completion, at) => {
        const text = textOf(shape, completion);
        if (text !== null) slots.set(`${at}:text`, text);
      });
      return slots;
    },
    streamReader: () => new CompletionStreamReader(shape),
  };
}

export const titanText = completionText(TITAN);
export const llamaText = completionText(LLAMA);
export const mistralPromptText = completionText(MISTRAL);
export const deepseekText = completionText(DEEPSEEK);
