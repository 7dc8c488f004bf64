// Chat completions → the messages API: system prompts hoisted into `system`, tool calls into
// `tool_use` blocks, tool answers into `tool_result` blocks of the next user turn, images into
// `image` blocks. Consecutive turns of one role are merged, as the messages API wants alternation.
import { GatewayError } from '../../core/errors.ts';
import {
  argumentsObject, parseDataUrl, requireSingleChoice, stopList, textOf,
  type ChatContentPart, type ChatMessage, type ChatRequest, type ChatToolChoice,
} from '../shared/chat.ts';
import { checkTranslatable, CHAT_PARAMS_READ } from '../shared/translatable.ts';
import { breakpointWithoutContent, type CacheControl, cacheControlOf, cacheSegments, lastCacheControl } from '../shared/cache-control.ts';
import type { KeptThinking } from '../types.ts';
import { withKeptMessagesThinking } from './kept-thinking.ts';
import { claudeThinkingOf, DEFAULT_ANSWER_TOKENS } from '../shared/asked-thinking.ts';
import { answerSchemaOf, isStrict } from '../shared/structured-output.ts';
import { claudeToolCallId } from '../shared/tool-call-id.ts';
import { inlineFileOf } from '../shared/file-part.ts';

export type MessagesBlock = (
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string } }
  | { type: 'document'; source: { type: 'base64'; media_type: string; data: string } | { type: 'text'; media_type: 'text/plain'; data: string }; title?: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean }
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'redacted_thinking'; data: string }
) & { cache_control?: CacheControl };

export interface MessagesTurn {
  role: 'user' | 'assistant';
  content: MessagesBlock[];
}

export interface MessagesRequest {
  model?: string;
  max_tokens: number;
  messages: MessagesTurn[];
  system?: { type: 'text'; text: string; cache_control?: CacheControl }[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  stream?: boolean;
  tools?: { name: string; description?: string; input_schema: Record<string, unknown>; strict?: boolean; cache_control?: CacheControl }[];
  tool_choice?: { type: 'auto' | 'any' | 'none' | 'tool'; name?: string; disable_parallel_tool_use?: boolean };
  metadata?: { user_id: string };
  thinking?: unknown;
  output_config?: { effort?: string; format?: { type: 'json_schema'; schema: Record<string, unknown> } };
}

/** The chat parameters this translation reads (the rest: shared/translatable.ts). */
const READS: ReadonlySet<string> = new Set([...CHAT_PARAMS_READ, 'top_k', 'user', 'thinking', 'reasoning_effort', 'parallel_tool_calls']);

/** `kept`: signed thinking kept from earlier answers, put back before the tool calls it led to (kept-thinking.ts). */
export function toMessagesRequest(chat: ChatRequest, provider: string, kept: ReadonlyMap<string, KeptThinking> | null = null): MessagesRequest {
  checkTranslatable(chat, READS, provider);
  requireSingleChoice(chat, provider);
  refuseShapeChanges(chat, provider);
  const system: NonNullable<MessagesRequest['system']> = [];
  const turns: MessagesTurn[] = [];
  for (const message of chat.messages) {
    if (message.role === 'system' || message.role === 'developer') {
      textBlocks(message, system, provider, 'a system message');
      const own = cacheControlOf(message);
      if (own !== undefined) markLast(system, own, provider, 'a system message');
      continue;
    }
    const turn = turnOf(message, provider, kept);
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
  const { thinking, effort, maxTokens } = claudeThinkingOf(chat, provider);
  const request: MessagesRequest = { model: chat.model, max_tokens: maxTokens ?? DEFAULT_ANSWER_TOKENS, messages: turns };
  if (system.length > 0) request.system = system;
  if (typeof chat.temperature === 'number') request.temperature = chat.temperature;
  if (typeof chat.top_p === 'number') request.top_p = chat.top_p;
  if (typeof chat.top_k === 'number') request.top_k = chat.top_k;
  const stop = stopList(chat.stop);
  if (stop !== undefined) request.stop_sequences = stop;
  if (chat.stream === true) request.stream = true;
  if (typeof chat.user === 'string') request.metadata = { user_id: chat.user };
  if (thinking !== undefined) request.thinking = thinking;
  const answerSchema = answerSchemaOf(chat, provider);
  if (effort !== undefined || answerSchema !== undefined) {
    request.output_config = { ...(effort !== undefined ? { effort } : {}), ...(answerSchema !== undefined ? { format: { type: 'json_schema', schema: answerSchema.schema } } : {}) };
  }
  if (Array.isArray(chat.tools) && chat.tools.length > 0) {
    request.tools = chat.tools.map((tool) => withMark({
      name: tool.function.name,
      ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
      input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
      ...(isStrict(tool) ? { strict: true } : {}),
    }, cacheControlOf(tool)));
  }
  const choice = toolChoiceOf(chat.tool_choice, chat.parallel_tool_calls === false);
  if (choice !== undefined && request.tools !== undefined) request.tool_choice = choice;
  return request;
}

function turnOf(message: ChatMessage, provider: string, kept: ReadonlyMap<string, KeptThinking> | null): MessagesTurn | null {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: userBlocks(message, provider) };
    case 'assistant': {
      const content: MessagesBlock[] = [];
      textBlocks(message, content, provider, 'an assistant message');
      for (const call of message.tool_calls ?? []) content.push({ type: 'tool_use', id: claudeToolCallId(call.id), name: call.function.name, input: argumentsObject(call) });
      if (content.length === 0) return null;
      const own = cacheControlOf(message);
      if (own !== undefined) markLast(content, own, provider, 'an assistant message');
      return { role: 'assistant', content: withKeptMessagesThinking(content, kept) };
    }
    case 'tool':
      // One block for the whole answer: a mark anywhere in it ends at the block.
      return { role: 'user', content: [withMark({ type: 'tool_result', tool_use_id: claudeToolCallId(message.tool_call_id ?? ''), content: textOf(message.content) }, lastCacheControl(message))] };
    default:
      throw new GatewayError('unsupported_parameter', `Messages with role "${message.role}" cannot be sent to the messages API; use "tool".`, 'messages');
  }
}

/**
 * A message's text as text blocks appended to `into`: one block as before, or one per run ending
 * at a cache breakpoint. A mark on a run without text goes to the block before it (the same
 * prefix), and is refused when there is none.
 */
function textBlocks(message: ChatMessage, into: MessagesBlock[] | NonNullable<MessagesRequest['system']>, provider: string, where: string): void {
  for (const segment of cacheSegments(message)) {
    const text = textOf(segment.content);
    if (text !== '') into.push(withMark({ type: 'text', text }, segment.cacheControl));
    else if (segment.cacheControl !== undefined) markLast(into, segment.cacheControl, provider, where);
  }
}

function userBlocks(message: ChatMessage, provider: string): MessagesBlock[] {
  const content = message.content;
  const blocks: MessagesBlock[] = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content.map((part) => partBlock(part, provider)) : [{ type: 'text', text: '' }];
  const own = cacheControlOf(message);
  if (own !== undefined) markLast(blocks, own, provider, 'a user message');
  return blocks;
}

function markLast(blocks: { cache_control?: CacheControl }[], mark: CacheControl, provider: string, where: string): void {
  const last = blocks.at(-1);
  if (last === undefined) throw breakpointWithoutContent(provider, where);
  last.cache_control = mark;
}

function withMark<T extends object>(block: T, mark: CacheControl | undefined): T & { cache_control?: CacheControl } {
  return mark === undefined ? block : { ...block, cache_control: mark };
}

/** The documents the messages API reads: a PDF, and plain text (which it takes as text, not base64). */
const DOCUMENT_TYPES: ReadonlySet<string> = new Set(['application/pdf', 'text/plain']);

function partBlock(part: ChatContentPart, provider: string): MessagesBlock {
  const mark = cacheControlOf(part);
  if (part.type === 'text') return withMark({ type: 'text', text: String(part.text ?? '') }, mark);
  if (part.type === 'image_url') {
    const url = (part as { image_url?: { url?: unknown } }).image_url?.url;
    if (typeof url === 'string') {
      const data = parseDataUrl(url);
      return withMark(data === null ? { type: 'image', source: { type: 'url', url } } : { type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.data } }, mark);
    }
  }
  if (part.type === 'file') {
    const file = inlineFileOf(part, provider, DOCUMENT_TYPES, 'a document block');
    const source = file.mediaType === 'text/plain'
      ? { type: 'text' as const, media_type: 'text/plain' as const, data: Buffer.from(file.data, 'base64').toString('utf8') }
      : { type: 'base64' as const, media_type: file.mediaType, data: file.data };
    return withMark({ type: 'document', source, ...(file.filename === undefined ? {} : { title: file.filename }) }, mark);
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
}
