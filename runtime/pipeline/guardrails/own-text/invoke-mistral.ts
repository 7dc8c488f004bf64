// Mistral's models on cloud C (which models: runtime/pipeline/metered-pass-through.ts) take one of two
// forms of invoke, and answer in the form they were sent: the text completion API's (`prompt`, answered
// `outputs[]`: 7B, Mixtral, Large and Small 2402; invoke-completions.ts) or the chat completion API's
// (`messages`, answered `choices[].message` as the chat endpoint's; its stream's pieces in each
// choice's `message`: Large 2402 and 2407, Pixtral Large; invoke-openai-chat.ts). Each body, answer
// and stream is read in the form it holds.
import { isMistralChatBody } from '../../metered-pass-through.ts';
import { mistralPromptText } from './invoke-completions.ts';
import { openaiChatText } from './invoke-openai-chat.ts';
import { isObject, type Json, type OwnStreamReader, type OwnText, type Piece } from './own-text.ts';

/** The reader of a request's form: the chat completion API's (`messages`) or the text completion API's. */
const byBody = (body: unknown): OwnText => (isMistralChatBody(body) ? openaiChatText : mistralPromptText);

/** The reader of an answer's (or a stream chunk's) form: the chat completion API's (`choices`) or the text completion API's (`outputs`). */
const byAnswer = (answer: unknown): OwnText => (isObject(answer) && Array.isArray(answer.choices) ? openaiChatText : mistralPromptText);

const UNREAD = 'the request\'s body has no `prompt` string and no `messages` list, the forms this model\'s invoke is read in, where no check can tell the text; not judged';

/** A stream read in the form its first chunk with text holds. */
class MistralStreamReader implements OwnStreamReader {
  #reader: OwnStreamReader | null = null;

  read(event: Json, type: string | undefined): Piece[] {
    if (this.#reader === null && (Array.isArray(event.choices) || Array.isArray(event.outputs))) this.#reader = byAnswer(event).streamReader();
    return this.#reader?.read(event, type) ?? [];
  }

  answer(): Json {
    return (this.#reader ?? mistralPromptText.streamReader()).answer();
  }
}

export const mistralText: OwnText = {
  unreadable: (body) => (isMistralChatBody(body) || typeof body.prompt === 'string' ? null : UNREAD),
  requestText: (body) => byBody(body).requestText(body),
  rewriteRequest: (body, apply) => byBody(body).rewriteRequest(body, apply),
  answerTexts: (answer) => byAnswer(answer).answerTexts(answer),
  rewriteAnswer: (answer, apply) => byAnswer(answer).rewriteAnswer(answer, apply),
  slots: (answer) => byAnswer(answer).slots(answer),
  streamReader: () => new MistralStreamReader(),
};
