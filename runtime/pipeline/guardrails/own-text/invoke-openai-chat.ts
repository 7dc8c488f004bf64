// OpenAI's open-weight models' invoke on cloud C (which models: runtime/pipeline/metered-pass-through.ts)
// takes and answers the chat completions API's body and answer, read and rewritten by the gateway's
// own chat endpoint's readers; its stream's `chunk` events each carry one chat completion chunk.
// Mistral's chat completion API there (invoke-mistral.ts) is the same body and answer, its stream's
// chunks carrying each piece in a choice's `message` (not `delta`) and its end as `stop_reason`.
import { keepChunkMembers } from '../../../providers/cloudc/own-stream-events.ts';
import { textOf as contentText, WRITTEN_TEXT_MEMBERS } from '../../../providers/shared/chat.ts';
import type { TextTransform } from '../check.ts';
import { answerText, otherAnswerTexts, requestText, rewriteAnswer, rewriteRequest } from '../hook-text.ts';
import { type Apply, isObject, type Json, type OwnStreamReader, type OwnText, type Piece } from './own-text.ts';

/** A chat message's or delta's members that hold the model's text: its content, its reasoning and refusal. */
const CHAT_TEXT_MEMBERS = ['content', ...WRITTEN_TEXT_MEMBERS] as const;

/** A transformer run through `apply` as the chat endpoint's rewriting takes it (what it found: whether it changed the text). */
function asTransform(apply: Apply): TextTransform {
  return (text) => {
    const out = apply(text);
    return { text: out, found: out === text ? 0 : 1 };
  };
}

/** A chat completion stream's chunks read into the whole answer: each choice's content, reasoning and refusal joined, by the choice's index (its piece in `delta`, or Mistral's in `message`). */
class ChatStreamReader implements OwnStreamReader {
  readonly #choices = new Map<number, Json>();
  readonly #rest: Json = {};

  read(event: Json): Piece[] {
    const pieces: Piece[] = [];
    keepChunkMembers(this.#rest, event, ['choices']);
    if (!Array.isArray(event.choices)) return pieces;
    for (const choice of event.choices as unknown[]) {
      if (!isObject(choice)) continue;
      const piece = isObject(choice.delta) ? choice.delta : isObject(choice.message) ? choice.message : null;
      if (piece === null) continue;
      const index = typeof choice.index === 'number' ? choice.index : 0;
      let held = this.#choices.get(index);
      if (held === undefined) this.#choices.set(index, (held = { index, message: { role: 'assistant', content: '' }, finish_reason: null }));
      const finish = typeof choice.finish_reason === 'string' ? choice.finish_reason : choice.stop_reason;
      if (typeof finish === 'string') held.finish_reason = finish;
      const message = held.message as Json;
      for (const member of CHAT_TEXT_MEMBERS) {
        const text = piece[member];
        if (typeof text !== 'string') continue;
        message[member] = `${typeof message[member] === 'string' ? message[member] : ''}${text}`;
        pieces.push({ slot: `${index}:${member}`, text, primary: true, put: (rewritten) => (piece[member] = rewritten) });
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
