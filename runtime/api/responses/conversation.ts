// Responses input → chat messages, tools, tool choice and format for the emulation over chat
// completions (docs/jobs.md lists what maps and what is refused); the answer's way back is
// output-builder.ts.
import { GatewayError } from '../../core/errors.ts';

export type ChatMessage = Record<string, unknown> & { role: string };

const ROLES: Readonly<Record<string, string>> = { user: 'user', assistant: 'assistant', system: 'system', developer: 'system' };

function unsupported(message: string, param: string): GatewayError {
  return new GatewayError('unsupported_parameter', `${message} The gateway emulates the Responses API over chat completions for this route, and chat completions have no equivalent.`, param);
}

/** `input` (a string or a list of items) as chat messages, in order. */
export function inputToMessages(input: unknown): ChatMessage[] {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input)) throw new GatewayError('invalid_request_body', 'input must be a string or a list of items.', '/input');
  const messages: ChatMessage[] = [];
  // A chat tool message holds text only: the images and files of a function call's output (a
  // screenshot an agent's tool took) go in a user message after the turn's tool messages, in order.
  let attachments: ChatPart[] = [];
  const push = (message: ChatMessage): void => {
    if (message.role !== 'tool' && attachments.length > 0) {
      messages.push({ role: 'user', content: attachments });
      attachments = [];
    }
    messages.push(message);
  };
  input.forEach((raw, i) => {
    const item = raw as Record<string, unknown>;
    const param = `/input/${i}`;
    const type = typeof item.type === 'string' ? item.type : 'message';
    switch (type) {
      case 'message': {
        const role = ROLES[String(item.role)];
        if (role === undefined) throw new GatewayError('invalid_request_body', `${param}/role must be user, assistant, system or developer.`, `${param}/role`);
        push({ role, content: contentOf(item.content, role, `${param}/content`) });
        return;
      }
      case 'function_call': {
        // A call to a tool of a namespace: the chat's tools have none (a namespace tool is refused), so its name alone would name another tool.
        if (item.namespace !== undefined && item.namespace !== null) throw unsupported('Function calls in a namespace are not supported.', `${param}/namespace`);
        const call = { id: stringOf(item.call_id, `${param}/call_id`), type: 'function', function: { name: stringOf(item.name, `${param}/name`), arguments: stringOf(item.arguments, `${param}/arguments`) } };
        const last = messages[messages.length - 1];
        // Consecutive calls are one assistant turn with several tool calls.
        if (last?.role === 'assistant' && Array.isArray(last.tool_calls) && last.content === null) (last.tool_calls as unknown[]).push(call);
        else push({ role: 'assistant', content: null, tool_calls: [call] });
        return;
      }
      case 'function_call_output':
        push({ role: 'tool', tool_call_id: stringOf(item.call_id, `${param}/call_id`), content: outputText(item.output, `${param}/output`, attachments) });
        return;
      case 'reasoning':
        // A reasoning summary from an earlier turn: chat completions cannot take it back, and need not.
        return;
      default:
        throw unsupported(`Input items of type "${type}" are not supported.`, `${param}/type`);
    }
  });
  if (attachments.length > 0) messages.push({ role: 'user', content: attachments });
  return messages;
}

/**
 * A function call's output as the tool message's text: a string as it is, a list of parts as its
 * text parts joined, its images and files put in `attachments`; any other JSON as its text.
 */
function outputText(output: unknown, param: string, attachments: ChatPart[]): string {
  if (typeof output === 'string') return output;
  if (!Array.isArray(output)) return JSON.stringify(output ?? '');
  let text = '';
  output.forEach((raw, k) => {
    const part = (raw ?? {}) as Record<string, unknown>;
    switch (part.type) {
      case 'input_text':
      case 'output_text':
        text += stringOf(part.text, `${param}/${k}/text`);
        return;
      case 'input_image':
        attachments.push(imagePartOf(part, `${param}/${k}`));
        return;
      case 'input_file':
        attachments.push(filePartOf(part, `${param}/${k}`));
        return;
      default:
        throw unsupported(`Output parts of type "${String(part.type)}" are not supported (input_text, input_image and input_file are).`, `${param}/${k}/type`);
    }
  });
  return text;
}

type ChatPart = Record<string, unknown> & { type: string };

/** A string member (a missing one is empty); anything else is the client's mistake, not text to send. */
function stringOf(value: unknown, param: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new GatewayError('invalid_request_body', `Invalid request body: ${param} must be a string.`, param);
  return value;
}

function imagePartOf(part: Record<string, unknown>, param: string): ChatPart {
  if (typeof part.image_url !== 'string') throw unsupported('Images are supported by URL (image_url) only.', param);
  return { type: 'image_url', image_url: { url: part.image_url, ...(typeof part.detail === 'string' ? { detail: part.detail } : {}) } };
}

/** An input file as the chat's file part: inline (a data URL in file_data, with its file name) or a Files API file_id. */
function filePartOf(part: Record<string, unknown>, param: string): ChatPart {
  if (typeof part.file_data === 'string') return { type: 'file', file: { file_data: part.file_data, ...(typeof part.filename === 'string' ? { filename: part.filename } : {}) } };
  if (typeof part.file_id === 'string') return { type: 'file', file: { file_id: part.file_id } };
  if (part.file_url !== undefined && part.file_url !== null) throw unsupported('Files are supported inline (file_data) or by file_id: a chat file part has no URL.', `${param}/file_url`);
  throw new GatewayError('invalid_request_body', `${param} must have file_data (with filename) or file_id.`, param);
}

function contentOf(content: unknown, role: string, param: string): unknown {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw new GatewayError('invalid_request_body', `${param} must be a string or a list of parts.`, param);
  const parts = content.map((raw, j): ChatPart => {
    const part = raw as Record<string, unknown>;
    switch (part.type) {
      case 'input_text':
      case 'output_text':
      case 'text':
        return { type: 'text', text: stringOf(part.text, `${param}/${j}/text`) };
      case 'refusal':
        return { type: 'text', text: stringOf(part.refusal, `${param}/${j}/refusal`) };
      case 'input_image':
      case 'input_file':
        // Assistant and system turns are plain text in every chat dialect: an image or file there would be dropped.
        if (role !== 'user') throw unsupported(`Images and files are sent in user messages only: a ${role} message of chat completions is its text.`, `${param}/${j}/type`);
        return part.type === 'input_image' ? imagePartOf(part, `${param}/${j}`) : filePartOf(part, `${param}/${j}`);
      default:
        throw unsupported(`Content parts of type "${String(part.type)}" are not supported.`, `${param}/${j}/type`);
    }
  });
  // Only user turns carry images and files (refused above in the others): text alone is sent as one string.
  if (parts.every((p) => p.type === 'text')) return parts.map((p) => String(p.text)).join('');
  return parts;
}

const FUNCTION_TOOL_MEMBERS: ReadonlySet<string> = new Set(['type', 'name', 'description', 'parameters', 'strict']);

/** Responses `tools` as chat tools: function tools only. */
export function toolsToChat(tools: unknown[] | undefined): unknown[] | undefined {
  if (tools === undefined || tools.length === 0) return undefined;
  return tools.map((raw, i) => {
    const tool = raw as Record<string, unknown>;
    if (tool.type !== 'function') throw unsupported(`Tools of type "${String(tool.type)}" are not supported.`, `/tools/${i}/type`);
    // A member the chat's function has no place for (a deferred tool's `defer_loading`) would be dropped unseen.
    for (const key of Object.keys(tool)) {
      if (!FUNCTION_TOOL_MEMBERS.has(key) && tool[key] !== null && tool[key] !== undefined) throw unsupported(`A function tool's "${key}" is not supported (name, description, parameters and strict are).`, `/tools/${i}/${key}`);
    }
    const fn: Record<string, unknown> = { name: tool.name };
    if (typeof tool.description === 'string') fn.description = tool.description;
    if (tool.parameters !== undefined && tool.parameters !== null) fn.parameters = tool.parameters;
    if (typeof tool.strict === 'boolean') fn.strict = tool.strict;
    return { type: 'function', function: fn };
  });
}

export function toolChoiceToChat(choice: unknown): unknown {
  if (choice === undefined || typeof choice === 'string') return choice;
  const object = choice as Record<string, unknown>;
  if (object.type === 'function' && typeof object.name === 'string') return { type: 'function', function: { name: object.name } };
  throw unsupported(`tool_choice of type "${String(object.type)}" is not supported.`, '/tool_choice');
}

/** `text.format` as a chat `response_format`; undefined for plain text. */
export function formatToChat(text: unknown): unknown {
  const format = (text as { format?: Record<string, unknown> } | null | undefined)?.format;
  if (format === undefined || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema') {
    const { type: _type, ...schema } = format;
    return { type: 'json_schema', json_schema: schema };
  }
  throw unsupported(`text.format of type "${String(format.type)}" is not supported.`, '/text/format/type');
}
