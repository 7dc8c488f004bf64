// Chat completions → converse: system prompts into `system`, turns into `messages` with content
// blocks (text, image bytes, toolUse, toolResult), sampling into `inferenceConfig`, tools into
// `toolConfig`, `thinking` into `additionalModelRequestFields` (a Claude model's). Consecutive turns
// of one role are merged: converse wants them alternating.
import { GatewayError } from '../../core/errors.ts';
import {
  argumentsObject, parseDataUrl, requireSingleChoice, stopList, textOf,
  type ChatContentPart, type ChatMessage, type ChatRequest,
} from '../shared/chat.ts';
import { checkTranslatable, CHAT_PARAMS_READ } from '../shared/translatable.ts';
import { breakpointWithoutContent, type CacheControl, cacheControlOf, cacheSegments, lastCacheControl } from '../shared/cache-control.ts';
import type { KeptThinking } from '../types.ts';
import { withKeptConverseThinking } from './kept-thinking.ts';
import { claudeThinkingOf, reasoningEffortOf } from '../shared/asked-thinking.ts';
import { answerSchemaOf, isStrict } from '../shared/structured-output.ts';
import { claudeToolCallId } from '../shared/tool-call-id.ts';
import { inlineFileOf } from '../shared/file-part.ts';

/** Converse's cache breakpoint: a block of its own after what it caches. */
export interface CachePoint {
  cachePoint: { type: 'default'; ttl?: '5m' | '1h' };
}

export type ConverseBlock =
  | { text: string }
  | { image: { format: string; source: { bytes: string } } }
  | { document: { format: string; name: string; source: { bytes: string } } }
  | { toolUse: { toolUseId: string; name: string; input: Record<string, unknown> } }
  | { toolResult: { toolUseId: string; content: ({ text: string } | { json: unknown })[] } }
  | { reasoningContent: { reasoningText: { text: string; signature: string } } | { redactedContent: string } }
  | CachePoint;

export interface ConverseTurn {
  role: 'user' | 'assistant';
  content: ConverseBlock[];
}

export interface ConverseRequest {
  messages: ConverseTurn[];
  system?: ({ text: string } | CachePoint)[];
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: {
    tools: ({ toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> }; strict?: boolean } } | CachePoint)[];
    toolChoice?: { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };
  };
  /** A model's own fields: a Claude model's `thinking`. */
  additionalModelRequestFields?: { thinking: unknown };
  /** Claude's effort (a model taking adaptive thinking), and the JSON schema the answer must match (its text, as converse takes it). */
  outputConfig?: { effort?: string; textFormat?: { type: 'json_schema'; structure: { jsonSchema: { schema: string; name?: string; description?: string } } } };
}

/** A Claude model's ID, inference profile or ARN (`anthropic.claude-…`, `us.anthropic.claude-…`), whose invoke speaks the messages API and whose converse takes `thinking`. */
export const CLAUDE_MODEL = /anthropic\.claude/;

/** The chat parameters this translation reads (the rest: shared/translatable.ts). */
const READS: ReadonlySet<string> = new Set([...CHAT_PARAMS_READ, 'thinking', 'reasoning_effort']);

/** `kept`: signed thinking kept from earlier answers, put back before the tool calls it led to (kept-thinking.ts). */
export function toConverseRequest(chat: ChatRequest, provider: string, kept: ReadonlyMap<string, KeptThinking> | null = null): ConverseRequest {
  checkTranslatable(chat, READS, provider);
  requireSingleChoice(chat, provider);
  if (chat.logprobs === true) throw new GatewayError('unsupported_parameter', `The provider "${provider}" returns no logprobs.`, 'logprobs');
  const system: NonNullable<ConverseRequest['system']> = [];
  const messages: ConverseTurn[] = [];
  let usesTools = false;
  for (const message of chat.messages) {
    if (message.role === 'system' || message.role === 'developer') {
      textBlocks(message, system, provider, 'a system message');
      const own = cacheControlOf(message);
      if (own !== undefined) pointAfter(system, own, provider, 'a system message');
      continue;
    }
    if (message.role === 'tool' || (message.tool_calls?.length ?? 0) > 0) usesTools = true;
    const turn = turnOf(message, provider, kept);
    if (turn === null) continue;
    const last = messages.at(-1);
    if (last !== undefined && last.role === turn.role) last.content.push(...turn.content);
    else messages.push(turn);
  }
  const request: ConverseRequest = { messages };
  if (system.length > 0) request.system = system;
  const inference: NonNullable<ConverseRequest['inferenceConfig']> = {};
  // The effort maps to a Claude model's thinking; other models' reasoning controls are their own.
  if (reasoningEffortOf(chat) !== undefined && !CLAUDE_MODEL.test(chat.model ?? '')) {
    throw new GatewayError('unsupported_parameter', `The gateway maps "reasoning_effort" to a Claude model's thinking on the provider "${provider}"; the model "${chat.model}" is not one.`, 'reasoning_effort');
  }
  const { thinking, effort, maxTokens } = claudeThinkingOf(chat, provider);
  if (maxTokens !== undefined) inference.maxTokens = maxTokens;
  if (typeof chat.temperature === 'number') inference.temperature = chat.temperature;
  if (typeof chat.top_p === 'number') inference.topP = chat.top_p;
  const stop = stopList(chat.stop);
  if (stop !== undefined) inference.stopSequences = stop;
  if (Object.keys(inference).length > 0) request.inferenceConfig = inference;
  // A Claude model's extended thinking, in its own fields (a model without it refuses them).
  if (thinking !== undefined) request.additionalModelRequestFields = { thinking };
  const answerSchema = answerSchemaOf(chat, provider);
  if (effort !== undefined || answerSchema !== undefined) {
    request.outputConfig = {
      ...(effort !== undefined ? { effort } : {}),
      ...(answerSchema !== undefined ? { textFormat: { type: 'json_schema', structure: { jsonSchema: { ...answerSchema, schema: JSON.stringify(answerSchema.schema) } } } } : {}),
    };
  }
  const choice = chat.tool_choice;
  // "none" has no converse form: without tool history the tools are left out, so none can be called.
  const dropTools = choice === 'none' && !usesTools;
  if (Array.isArray(chat.tools) && chat.tools.length > 0 && !dropTools) {
    request.toolConfig = {
      tools: chat.tools.flatMap((tool) => withPoint([{
        toolSpec: {
          name: tool.function.name,
          ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
          inputSchema: { json: tool.function.parameters ?? { type: 'object', properties: {} } },
          ...(isStrict(tool) ? { strict: true } : {}),
        },
      }], cacheControlOf(tool))),
    };
    if (choice === 'auto') request.toolConfig.toolChoice = { auto: {} };
    else if (choice === 'required') request.toolConfig.toolChoice = { any: {} };
    else if (typeof choice === 'object' && choice !== null) request.toolConfig.toolChoice = { tool: { name: choice.function.name } };
  }
  return request;
}

function turnOf(message: ChatMessage, provider: string, kept: ReadonlyMap<string, KeptThinking> | null): ConverseTurn | null {
  switch (message.role) {
    case 'user': {
      const content: ConverseBlock[] = typeof message.content === 'string'
        ? [{ text: message.content }]
        : (message.content ?? []).flatMap((part) => withPoint([blockOf(part, provider)], cacheControlOf(part)));
      const own = cacheControlOf(message);
      if (own !== undefined) pointAfter(content, own, provider, 'a user message');
      return { role: 'user', content };
    }
    case 'assistant': {
      const content: ConverseBlock[] = [];
      textBlocks(message, content, provider, 'an assistant message');
      for (const call of message.tool_calls ?? []) content.push({ toolUse: { toolUseId: claudeToolCallId(call.id), name: call.function.name, input: argumentsObject(call) } });
      if (content.length === 0) return null;
      const own = cacheControlOf(message);
      if (own !== undefined) pointAfter(content, own, provider, 'an assistant message');
      return { role: 'assistant', content: withKeptConverseThinking(content, kept) };
    }
    case 'tool':
      // One block for the whole answer: a mark anywhere in it ends after the block.
      return { role: 'user', content: withPoint([{ toolResult: { toolUseId: claudeToolCallId(message.tool_call_id ?? ''), content: [{ text: textOf(message.content) }] } }], lastCacheControl(message)) };
    default:
      throw new GatewayError('unsupported_parameter', `Messages with role "${message.role}" cannot be sent to converse; use "tool".`, 'messages');
  }
}

/**
 * A message's text as text blocks appended to `into`: one block as before, or one per run ending at
 * a cache breakpoint, each followed by its cache point. A mark on a run without text follows the
 * block before it (the same prefix), and is refused when there is none.
 */
function textBlocks(message: ChatMessage, into: ConverseBlock[] | NonNullable<ConverseRequest['system']>, provider: string, where: string): void {
  for (const segment of cacheSegments(message)) {
    const text = textOf(segment.content);
    if (text !== '') into.push({ text });
    if (segment.cacheControl !== undefined) pointAfter(into, segment.cacheControl, provider, where);
  }
}

function pointAfter(blocks: object[], mark: CacheControl, provider: string, where: string): void {
  const last = blocks.at(-1);
  if (last === undefined) throw breakpointWithoutContent(provider, where);
  // Two marks at one place (a marked message whose last part is marked too) are one breakpoint.
  if (!('cachePoint' in last)) blocks.push(cachePoint(mark));
}

function withPoint<T>(blocks: T[], mark: CacheControl | undefined): (T | CachePoint)[] {
  return mark === undefined ? blocks : [...blocks, cachePoint(mark)];
}

function cachePoint(mark: CacheControl): CachePoint {
  return { cachePoint: mark.ttl === undefined ? { type: 'default' } : { type: 'default', ttl: mark.ttl } };
}

const IMAGE_FORMATS: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** Converse's document formats, by the media type of a file part's data URL. */
const DOCUMENT_FORMATS: ReadonlyMap<string, string> = new Map([
  ['application/pdf', 'pdf'], ['text/csv', 'csv'], ['application/msword', 'doc'], ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
  ['application/vnd.ms-excel', 'xls'], ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx'], ['text/html', 'html'], ['text/plain', 'txt'], ['text/markdown', 'md'],
]);
const DOCUMENT_TYPES: ReadonlySet<string> = new Set(DOCUMENT_FORMATS.keys());

/**
 * A document's name as converse takes it: letters, digits, single spaces, hyphens, parentheses and
 * square brackets (a file name's dot and extension are not among them), `document` when none is left.
 */
function documentName(filename: string | undefined): string {
  const name = (filename ?? '').replace(/[^a-zA-Z0-9\s\-()[\]]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200).trim();
  return name === '' ? 'document' : name;
}

function blockOf(part: ChatContentPart, provider: string): ConverseBlock {
  if (part.type === 'text') return { text: String(part.text ?? '') };
  if (part.type === 'image_url') {
    const url = (part as { image_url?: { url?: unknown } }).image_url?.url;
    const data = typeof url === 'string' ? parseDataUrl(url) : null;
    const format = data === null ? undefined : IMAGE_FORMATS[data.mediaType];
    if (data !== null && format !== undefined) return { image: { format, source: { bytes: data.data } } };
    throw new GatewayError('unsupported_parameter', 'Images for converse must be base64 data URLs of png, jpeg, gif or webp.', 'messages');
  }
  if (part.type === 'file') {
    const file = inlineFileOf(part, provider, DOCUMENT_TYPES, 'a document block');
    return { document: { format: DOCUMENT_FORMATS.get(file.mediaType)!, name: documentName(file.filename), source: { bytes: file.data } } };
  }
  throw new GatewayError('unsupported_parameter', `Content parts of type "${part.type}" cannot be sent to converse.`, 'messages');
}
