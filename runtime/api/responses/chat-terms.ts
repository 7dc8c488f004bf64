// An emulated Responses call is a chat completions call (handlers.ts maps the one onto the other), so
// a refusal on the way (a translation that has no such parameter, a malformed tool) names the chat
// request's fields: `reasoning_effort`, `max_tokens`, `/tools/0/function/parameters`. The client sent
// a Responses request; this names its fields instead, in the param and in the message.
import { GatewayError } from '../../core/errors.ts';

/** Chat request field → the Responses field it came from, where the names differ. */
const RENAMED: Readonly<Record<string, string[]>> = {
  max_tokens: ['max_output_tokens'],
  reasoning_effort: ['reasoning', 'effort'],
  verbosity: ['text', 'verbosity'],
  response_format: ['text', 'format'],
  // The conversation is the history, the instructions and the input, fitted to the context window:
  // a message's index is not an input item's.
  messages: ['input'],
};

/** The error with its param (a name or a JSON pointer) and message in the Responses request's terms. */
export function inResponsesTerms(error: GatewayError): GatewayError {
  const param = error.param;
  if (param === null) return error;
  const pointer = param.startsWith('/');
  const chat = (pointer ? param.slice(1) : param).split('/');
  const responses = responsesPath(chat);
  if (responses === null) return error;
  const renamed = pointer ? `/${responses.join('/')}` : responses.join('.');
  const message = error.message.split(param).join(renamed).split(`"${chat[0]}"`).join(`"${responses.join('.')}"`);
  return new GatewayError(error.code, message, renamed, error.details);
}

function responsesPath(chat: string[]): string[] | null {
  const [head, ...rest] = chat;
  if (head === undefined) return null;
  const renamed = RENAMED[head];
  if (renamed !== undefined) {
    if (head === 'messages') return renamed;
    // A chat json_schema format nests what a Responses format holds flat: response_format/json_schema/schema → text/format/schema.
    if (head === 'response_format' && rest[0] === 'json_schema') return [...renamed, ...rest.slice(1)];
    return [...renamed, ...rest];
  }
  // Chat tools nest what a Responses function tool holds flat: tools/0/function/parameters → tools/0/parameters.
  if ((head === 'tools' && rest[1] === 'function') || (head === 'tool_choice' && rest[0] === 'function')) {
    return head === 'tools' ? [head, rest[0]!, ...rest.slice(2)] : [head, ...rest.slice(1)];
  }
  return null;
}
