// The messages API's token count for a model the vendor answers as a chat: the vendor's chat API
// counts nothing, but its Responses API does (`POST /responses/input_tokens`, the input a response
// would read). The chat the messages call stands for (shared/messages-as-chat.ts) goes there as that
// API's input: its messages as input items in order (tool calls and their results as the function
// call items the chat's tool calls are), its tools, tool choice, effort and output format as the
// Responses API names them. What shapes the answer only (its token limit, stop sequences, sampling,
// the end user) counts no input token and is no member of the count's body, which the vendor refuses
// unknown members of. Answered `{"input_tokens": n}`, in the messages API's shape, its errors too.
import { GatewayError } from '../../core/errors.ts';
import { tokenCountAnswer } from '../shared/token-count-answer.ts';
import type { ResponseMapping } from '../types.ts';
import { joinUrl } from '../shared/url.ts';

type Json = Record<string, unknown>;

/** The count's URL beside the chat's (`…/v1/responses/input_tokens`). */
export function inputTokensUrl(base: string): string {
  return joinUrl(base, '/responses/input_tokens');
}

/**
 * The count's body for `chat`, a chat completion as messages-as-chat.ts makes one: every shape that
 * translation gives is mapped, and any other is refused (a shape it gains must be mapped here too,
 * not counted as nothing).
 */
export function inputTokensBody(chat: Json): Buffer {
  const body: Json = { model: chat.model, input: (chat.messages as Json[]).flatMap(inputItemsOf) };
  if (Array.isArray(chat.tools)) body.tools = (chat.tools as Json[]).map(toolOf);
  if (chat.tool_choice !== undefined) body.tool_choice = toolChoiceOf(chat.tool_choice);
  if (chat.parallel_tool_calls !== undefined) body.parallel_tool_calls = chat.parallel_tool_calls;
  if (chat.reasoning_effort !== undefined) body.reasoning = { effort: chat.reasoning_effort };
  if (chat.response_format !== undefined) body.text = { format: formatOf(chat.response_format as Json) };
  return Buffer.from(JSON.stringify(body));
}

/** A chat message as the Responses API's input items. */
function inputItemsOf(message: Json): Json[] {
  switch (message.role) {
    case 'system': return [{ role: 'system', content: message.content }];
    case 'user': return [{ role: 'user', content: typeof message.content === 'string' ? message.content : (message.content as Json[]).map(inputPartOf) }];
    case 'assistant': {
      const items: Json[] = typeof message.content === 'string' ? [{ role: 'assistant', content: message.content }] : [];
      for (const call of (message.tool_calls ?? []) as Json[]) {
        const fn = call.function as Json;
        items.push({ type: 'function_call', call_id: call.id, name: fn.name, arguments: fn.arguments });
      }
      return items;
    }
    case 'tool': return [{ type: 'function_call_output', call_id: message.tool_call_id, output: message.content }];
    default: throw unmapped(`a chat message of role ${JSON.stringify(message.role)}`);
  }
}

function inputPartOf(part: Json): Json {
  switch (part.type) {
    case 'text': return { type: 'input_text', text: part.text };
    case 'image_url': return { type: 'input_image', image_url: (part.image_url as Json).url, detail: 'auto' };
    case 'file': {
      const file = part.file as Json;
      return { type: 'input_file', filename: file.filename, file_data: file.file_data };
    }
    default: throw unmapped(`a content part of type ${JSON.stringify(part.type)}`);
  }
}

/** A chat function tool as a Responses one, whose `strict` the chat's default (off) unless said. */
function toolOf(tool: Json): Json {
  const fn = tool.function as Json;
  return { type: 'function', name: fn.name, ...(fn.description === undefined ? {} : { description: fn.description }), parameters: fn.parameters, strict: fn.strict === true };
}

function toolChoiceOf(choice: unknown): unknown {
  if (typeof choice === 'string') return choice;
  return { type: 'function', name: ((choice as Json).function as Json).name };
}

function formatOf(format: Json): Json {
  const schema = format.json_schema as Json;
  return { type: 'json_schema', name: schema.name, schema: schema.schema, strict: schema.strict === true };
}

function unmapped(what: string): GatewayError {
  return new GatewayError('unsupported_parameter', `The vendor's token count does not map ${what}.`, null);
}

/** `{"object": "response.input_tokens", "input_tokens": n}` as the messages API's count; errors in that API's shape. */
export function inputTokensResponse(provider: string, error: NonNullable<ResponseMapping['error']>): ResponseMapping {
  return tokenCountAnswer(provider, 'input_tokens', error);
}
