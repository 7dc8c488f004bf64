// Chat completions → the messages API: system prompts hoisted into `system`, tool calls into
// `tool_use` blocks, tool answers into `tool_result` blocks of the next user turn, images into
// `image` blocks. Consecutive turns of one role are merged, as the messages API wants alternation.
import { GatewayError } from '../../core/errors.ts';
import {
  argumentsObject, maxTokensOf, parseDataUrl, requireSingleChoice, stopList, textOf,
  type ChatContentPart, type ChatMessage, type ChatRequest, type ChatToolChoice,
} from '../shared/chat.ts';
import { checkTranslatable, CHAT_PARAMS_READ } from '../shared/translatable.ts';

/** The messages API requires max_tokens; chat completions make it optional. */
export const DEFAULT_MAX_TOKENS = 4096;

export type MessagesBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string } }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean }
  | { type: 'thinking'; thinking: string; signature?: string };

export interface MessagesTurn {
  role: 'user' | 'assistant';
  content: MessagesBlock[];
}

export interface MessagesRequest {
  model?: string;
  max_tokens: number;
  messages: MessagesTurn[];
  system?: { type: 'text'; text: string }[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  stream?: boolean;
  tools?: { name: string; description?: string; input_schema: Record<string, unknown> }[];
  tool_choice?: { type: 'auto' | 'any' | 'none' | 'tool'; name?: string; disable_parallel_tool_use?: boolean };
  metadata?: { user_id: string };
  thinking?: unknown;
}

/** The chat parameters this translation reads (the rest: shared/translatable.ts). */
const READS: ReadonlySet<string> = new Set([...CHAT_PARAMS_READ, 'top_k', 'user', 'thinking', 'parallel_tool_calls']);

export function toMessagesRequest(chat: ChatRequest, provider: string): MessagesRequest {
  checkTranslatable(chat, READS, provider);
  requireSingleChoice(chat, provider);
  refuseShapeChanges(chat, provider);
  const system: { type: 'text'; text: string }[] = [];
  const turns: MessagesTurn[] = [];
  for (const message of chat.messages) {
    if (message.role === 'system' || message.role === 'developer') {
      const text = textOf(message.content);
      if (text !== '') system.push({ type: 'text', text });
      continue;
    }
    const turn = turnOf(message);
    if (turn === null) continue;
    const last = turns.at(-1);
    if (last !== undefined && last.role === turn.role) {
      // tool_result blocks must open their user turn.
      last.content = turn.content.some((b) => b.type === 'tool_result') && last.role === 'user'
        ? [...last.content.filter((b) => b.type === 'tool_result'), ...turn.content, ...last.content.filter((b) => b.type !== 'tool_result')]
        : [...last.content, ...turn.content];
    } else {
      turns.push(turn);
    }
  }
  const request: MessagesRequest = { model: chat.model, max_tokens: maxTokensOf(chat) ?? DEFAULT_MAX_TOKENS, messages: turns };
  if (system.length > 0) request.system = system;
  if (typeof chat.temperature === 'number') request.temperature = chat.temperature;
  if (typeof chat.top_p === 'number') request.top_p = chat.top_p;
  if (typeof chat.top_k === 'number') request.top_k = chat.top_k;
  const stop = stopList(chat.stop);
  if (stop !== undefined) request.stop_sequences = stop;
  if (chat.stream === true) request.stream = true;
  if (typeof chat.user === 'string') request.metadata = { user_id: chat.user };
  if (chat.thinking !== undefined && chat.thinking !== null) request.thinking = chat.thinking;
  if (Array.isArray(chat.tools) && chat.tools.length > 0) {
    request.tools = chat.tools.map((tool) => ({
      name: tool.function.name,
      ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
      input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
    }));
  }
  const choice = toolChoiceOf(chat.tool_choice, chat.parallel_tool_calls === false);
  if (choice !== undefined && request.tools !== undefined) request.tool_choice = choice;
  return request;
}

function turnOf(message: ChatMessage): MessagesTurn | null {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: userBlocks(message.content) };
    case 'assistant': {
      const content: MessagesBlock[] = [];
      const text = textOf(message.content);
      if (text !== '') content.push({ type: 'text', text });
      for (const call of message.tool_calls ?? []) content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: argumentsObject(call) });
      return content.length === 0 ? null : { role: 'assistant', content };
    }
    case 'tool':
      return { role: 'user', content: [{ type: 'tool_result', tool_use_id: message.tool_call_id ?? '', content: textOf(message.content) }] };
    default:
      throw new GatewayError('unsupported_parameter', `Messages with role "${message.role}" cannot be sent to the messages API; use "tool".`, 'messages');
  }
}

function userBlocks(content: ChatMessage['content']): MessagesBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [{ type: 'text', text: '' }];
  return content.map(partBlock);
}

function partBlock(part: ChatContentPart): MessagesBlock {
  if (part.type === 'text') return { type: 'text', text: String(part.text ?? '') };
  if (part.type === 'image_url') {
    const url = (part as { image_url?: { url?: unknown } }).image_url?.url;
    if (typeof url === 'string') {
      const data = parseDataUrl(url);
      return data === null ? { type: 'image', source: { type: 'url', url } } : { type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.data } };
    }
  }
  throw new GatewayError('unsupported_parameter', `Content parts of type "${part.type}" cannot be sent to the messages API.`, 'messages');
}

function toolChoiceOf(choice: ChatToolChoice | null | undefined, noParallel: boolean): MessagesRequest['tool_choice'] {
  let mapped: MessagesRequest['tool_choice'];
  if (choice === undefined || choice === null) mapped = noParallel ? { type: 'auto' } : undefined;
  else if (choice === 'auto') mapped = { type: 'auto' };
  else if (choice === 'required') mapped = { type: 'any' };
  else if (choice === 'none') return { type: 'none' };
  else mapped = { type: 'tool', name: choice.function.name };
  if (mapped !== undefined && noParallel) mapped.disable_parallel_tool_use = true;
  return mapped;
}

/** Parameters that change the answer's shape cannot be dropped silently. */
function refuseShapeChanges(chat: ChatRequest, provider: string): void {
  if (chat.logprobs === true) throw new GatewayError('unsupported_parameter', `The provider "${provider}" returns no logprobs.`, 'logprobs');
  const format = chat.response_format?.type;
  if (format !== undefined && format !== 'text') {
    throw new GatewayError('unsupported_parameter', `The provider "${provider}" has no response_format "${format}".`, 'response_format');
  }
}
