// The formats of other models' invoke on cloud C that the gateway reads (which models speak which:
// runtime/pipeline/metered-pass-through.ts). Amazon Nova's invoke takes and answers converse's shapes,
// and its stream's `chunk` events each carry one converse-stream event as a one-member object
// (`{"contentBlockDelta": {…}}`). The text completion models take a prompt, the turns already in
// the model's own template, and answer completions: Titan's text models (`inputText`; `results[]`'s
// `outputText`, streamed one result's piece a chunk, by `index`), Llama (`prompt`; one `generation`,
// streamed the same), Mistral's text completion (`prompt`; `outputs[]`'s `text`, streamed as
// `outputs` of pieces), DeepSeek-R1 (`prompt`; `choices[]`'s `text`, streamed as `choices` of
// pieces). Checks judge the whole prompt, as a completion's; transformers rewrite it and
// every completion. A body without the prompt (another form the model may take) is not read.
// OpenAI's open-weight models take and answer the chat completions API's body and answer, read as the
// gateway's own chat endpoint reads them; their stream's chunks each carry one chat completion chunk.
import { textOf as contentText, WRITTEN_TEXT_MEMBERS } from '../../../providers/shared/chat.ts';
import { answerText, otherAnswerTexts, requestText, rewriteAnswer, rewriteRequest } from '../hook-text.ts';
import type { TextTransform } from '../check.ts';
import { converseText } from './converse.ts';
import { type Apply, isObject, type Json, type OwnStreamReader, type OwnText, type Piece } from './own-text.ts';

/** The service's own member of an invoke stream's last chunk: its counts, not the model's answer. */
const INVOCATION_METRICS = 'amazon-bedrock-invocationMetrics';

/** The events of converse-stream, each a chunk's one member in Nova's invoke stream. */
const NOVA_EVENTS = ['messageStart', 'contentBlockStart', 'contentBlockDelta', 'contentBlockStop', 'messageStop', 'metadata'] as const;

class NovaStreamReader implements OwnStreamReader {
  readonly #converse = converseText.streamReader();

  read(event: Json): Piece[] {
    for (const type of NOVA_EVENTS) {
      const inner = event[type];
      if (isObject(inner)) return this.#converse.read(inner, type);
    }
    return [];
  }

  answer(): Json {
    return this.#converse.answer();
  }
}

export const novaText: OwnText = { ...converseText, streamReader: () => new NovaStreamReader() };

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
    if (shape.list !== null && 'list' in shape.chunk) this.#keep(this.#rest, event, shape.chunk.list);
    for (const [number, completion] of completions) {
      let at = this.#places.get(number);
      if (at === undefined) {
        at = this.#completions.push({ [shape.member]: '' }) - 1;
        this.#places.set(number, at);
      }
      const held = this.#completions[at]!;
      this.#keep(held, completion, shape.member, 'index');
      const text = completion[shape.member];
      if (typeof text !== 'string') continue;
      held[shape.member] = `${held[shape.member] as string}${text}`;
      pieces.push({ slot: `${at}:text`, text, primary: true, put: (rewritten) => (completion[shape.member] = rewritten) });
    }
    return pieces;
  }

  /** `from`'s members but `except`, when not null, into `into` (the service's metrics left out; a `__proto__` member would set the object's prototype). */
  #keep(into: Json, from: Json, ...except: string[]): void {
    for (const [name, value] of Object.entries(from)) if (value !== null && name !== INVOCATION_METRICS && name !== '__proto__' && !except.includes(name)) into[name] = value;
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
export const mistralText = completionText(MISTRAL);
export const deepseekText = completionText(DEEPSEEK);

/** A chat message's or delta's members that hold the model's text: its content, its reasoning and refusal. */
const CHAT_TEXT_MEMBERS = ['content', ...WRITTEN_TEXT_MEMBERS] as const;

/** A transformer run through `apply` as the chat endpoint's rewriting takes it (what it found: whether it changed the text). */
function asTransform(apply: Apply): TextTransform {
  return (text) => {
    const out = apply(text);
    return { text: out, found: out === text ? 0 : 1 };
  };
}

/** A chat completion stream's chunks read into the whole answer: each choice's content, reasoning and refusal joined, by the choice's index. */
class ChatStreamReader implements OwnStreamReader {
  readonly #choices = new Map<number, Json>();
  readonly #rest: Json = {};

  read(event: Json): Piece[] {
    const pieces: Piece[] = [];
    for (const [name, value] of Object.entries(event)) if (name !== 'choices' && name !== '__proto__' && value !== null && name !== INVOCATION_METRICS) this.#rest[name] = value;
    if (!Array.isArray(event.choices)) return pieces;
    for (const choice of event.choices as unknown[]) {
      if (!isObject(choice) || !isObject(choice.delta)) continue;
      const index = typeof choice.index === 'number' ? choice.index : 0;
      let held = this.#choices.get(index);
      if (held === undefined) this.#choices.set(index, (held = { index, message: { role: 'assistant', content: '' }, finish_reason: null }));
      if (typeof choice.finish_reason === 'string') held.finish_reason = choice.finish_reason;
      const message = held.message as Json;
      const delta = choice.delta;
      for (const member of CHAT_TEXT_MEMBERS) {
        const text = delta[member];
        if (typeof text !== 'string') continue;
        message[member] = `${typeof message[member] === 'string' ? message[member] : ''}${text}`;
        pieces.push({ slot: `${index}:${member}`, text, primary: true, put: (rewritten) => (delta[member] = rewritten) });
      }
    }
    return pieces;
  }

  answer(): Json {
    return { ...this.#rest, object: 'chat.completion', choices: [...this.#choices.values()] };
  }
}

export const openaiChatText: OwnText = {
  requestText: (body) => requestText('chat', body),
  rewriteRequest: (body, apply) => rewriteRequest('chat', body, asTransform(apply)).value as Json,
  answerTexts: (answer) => [{ label: '', text: answerText('chat', answer) }, ...otherAnswerTexts('chat', answer)],
  rewriteAnswer: (answer, apply) => rewriteAnswer('chat', answer, asTransform(apply)).value as Json,
  slots(answer) {
    const slots = new Map<string, string>();
    const choices = isObject(answer) && Array.isArray(answer.choices) ? answer.choices : [];
    choices.forEach((choice: unknown, at: number) => {
      if (!isObject(choice) || !isObject(choice.message)) return;
      const index = typeof choice.index === 'number' ? choice.index : at;
      for (const member of CHAT_TEXT_MEMBERS) {
        const value = choice.message[member];
        if (member === 'content' ? value !== undefined && value !== null : typeof value === 'string') slots.set(`${index}:${member}`, member === 'content' ? contentText(value) : (value as string));
      }
    });
    return slots;
  },
  streamReader: () => new ChatStreamReader(),
};
