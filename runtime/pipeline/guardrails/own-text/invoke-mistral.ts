// Mistral's models on cloud C (which models: runtime/pipeline/metered-pass-through.ts) take one of two
// forms of invoke, and answer in the form they were sent: the text completion API's (`prompt`, answered
// `outputs[]`: 7B, Mixtral, Large and Small 2402; invoke-completions.ts) or the chat completion API's
// (`messages`, answered `choices[].message` as the chat endpoint's; its stream's pieces in each
// choice's `message`: Large 2402 and 2407, Pixtral Large; invoke-openai-chat.ts). Each body, answer
// and stream is read in the form it holds.
import { mistralPromptText } from './invoke-completions.ts';
import { openaiChatText } from './invoke-openai-chat.ts';
import { isObject, type Json, type OwnStreamReader, type OwnText, type Piece } from './own-text.ts';

/** Whether a Mistral request is in the chat form (its `messages`), not the text completion form (its `prompt`). */
export function isMistralChatBody(body: unknown): boolean {
  return isObject(body) && Array.isArray(body.messages);
}

/** Whether an answer or a stream's chunk is in the chat form (`choices`), not the text completion form (`outputs`). */
const isChatAnswer = (answer: Json): boolean => Array.isArray(answer.choices);

const UNREAD = 'the request\'s body has no `prompt` string and no `messages` list, the forms this model\'s invoke is read in, where no check can tell the text; not judged';

/** A stream read in the form its first chunk with text holds. */
class MistralStreamReader implements OwnStreamReader {
  #reader: OwnStreamReader | null = null;

  read(event: Json, type: string | undefined): Piece[] {
    this.#reader ??= isChatAnswer(event) ? openaiChatText.streamReader() : Array.isArray(event.outputs) ? mistralPromptText.streamReader() : null;
    return this.#reader?.read(event, type) ?? [];
  }

  answer(): Json {
    return (this.#reader ?? mistralPromptText.streamReader()).answer();
  }
}

export const mistralText: OwnText = {
  unreadable: (body) => (isMistralChatBody(body) || typeof body.prompt === 'string' ? null : UNREAD),
  requestText: (body) => (isMistralChatBody(body) ? openaiChatText : mistralPromptText).requestText(body),
  rewriteRequest: (body, apply) => (isMistralChatBody(body) ? openaiChatText : mistralPromptText).rewriteRequest(body, apply),
  answerTexts: (answer) => (isChatAnswer(answer) ? openaiChatText : mistralPromptText).answerTexts(answer),
  rewriteAnswer: (answer, apply) => (isChatAnswer(answer) ? openaiChatText : mistralPromptText).rewriteAnswer(answer, apply),
  slots: (answer) => (isObject(answer) && isChatAnswer(answer) ? openaiChatText : mistralPromptText).slots(answer),
  streamReader: () => new MistralStreamReader(),
};
