// The vendor's chat-completions shapes as the transforms read and write them, and the small
// helpers every family shares (text of a content array, data URLs, tool-call arguments).
import { GatewayError } from '../../core/errors.ts';
import type { ChatUsage, FinishReason } from './chat-chunks.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';

export interface ChatTextPart { type: 'text'; text: string }
export interface ChatImagePart { type: 'image_url'; image_url: { url: string; detail?: string } }
export type ChatContentPart = ChatTextPart | ChatImagePart | { type: string; [key: string]: unknown };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';
  content?: string | ChatContentPart[] | null;
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
}

export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ChatToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export interface ChatRequest {
  model?: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  stop?: string | string[] | null;
  n?: number | null;
  seed?: number | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice;
  response_format?: { type: string; json_schema?: { name?: string; description?: string; schema?: Record<string, unknown>; strict?: boolean | null } };
  user?: string;
  [key: string]: unknown;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: { role: 'assistant'; content: string | null; refusal: null; tool_calls?: ChatToolCall[]; reasoning_content?: string };
    logprobs: null;
    finish_reason: FinishReason;
  }[];
  usage: ChatUsage;
}

/** The body as a chat request; 400 when it has no messages array (the route validator normally said so first). */
export function chatRequestOf(body: Record<string, unknown> | undefined): ChatRequest {
  if (body === undefined || !Array.isArray(body.messages)) {
    throw new GatewayError('invalid_request_body', 'A chat completion needs a "messages" array.', 'messages');
  }
  return body as ChatRequest;
}

export function includeUsage(request: ChatRequest): boolean {
  return request.stream_options?.include_usage === true;
}

/** A content part that carries text. Parts are the client's JSON: a `null` or a number among them is no text part. */
export function isTextPart(part: unknown): part is { type: 'text'; text: string } {
  return part !== null && typeof part === 'object' && (part as { type?: unknown }).type === 'text' && typeof (part as { text?: unknown }).text === 'string';
}

/** The text of a message content: a string, or its text parts joined. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) if (isTextPart(part)) text += part.text;
  return text;
}

/**
 * Members of an assistant message, or of a stream's delta, that carry text the model wrote besides
 * `content`: its reasoning (`reasoning_content`: DeepSeek and the gateway's translations of thinking;
 * `reasoning`: vLLM, Groq, OpenRouter) and a refusal.
 */
export const WRITTEN_TEXT_MEMBERS = ['reasoning_content', 'reasoning', 'refusal'] as const;

/**
 * The transcript of a spoken answer (`modalities` with audio): of a message, or the piece a stream's
 * delta carries (`audio.transcript`); null when it has none.
 */
export function spokenTranscript(messageOrDelta: unknown): string | null {
  const audio = (messageOrDelta as { audio?: unknown } | null | undefined)?.audio;
  const transcript = (audio as { transcript?: unknown } | null | undefined)?.transcript;
  return typeof transcript === 'string' ? transcript : null;
}

export function stopList(stop: ChatRequest['stop']): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  return typeof stop === 'string' ? [stop] : stop;
}

/** `max_completion_tokens`, else `max_tokens`. */
export function maxTokensOf(request: ChatRequest): number | undefined {
  const value = request.max_completion_tokens ?? request.max_tokens;
  return typeof value === 'number' ? value : undefined;
}

/** A tool call's `arguments` string as the object the provider wants; 400 when it is not a JSON object. */
export function argumentsObject(call: ChatToolCall): Record<string, unknown> {
  const text = call.function.arguments;
  if (text === '' || text === undefined) return {};
  let value: unknown;
  try {
    value = parseJson(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new GatewayError('invalid_request_body', `The arguments of tool call "${call.id}" are not a JSON object.`, 'messages');
  }
  return value as Record<string, unknown>;
}

export interface DataUrl { mediaType: string; data: string }

/** `data:image/png;base64,AAAA` → its media type and base64 data; null for any other URL. */
export function parseDataUrl(url: string): DataUrl | null {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match === null ? null : { mediaType: match[1], data: match[2] };
}

/** Refuses `n` > 1 for providers that answer one choice only. */
export function requireSingleChoice(request: ChatRequest, provider: string): void {
  if (typeof request.n === 'number' && request.n > 1) {
    throw new GatewayError('unsupported_parameter', `The provider "${provider}" returns one choice per request; n must be 1.`, 'n');
  }
}

/** Prompt tokens a provider wrote to its prompt cache: all, and of those the ones kept for an hour. */
export interface CacheWrites {
  tokens: number;
  oneHourTokens: number;
}

/**
 * The vendor's usage object. `cached`: of the prompt tokens, those the provider read from its prompt
 * cache, when its answer says (the vendor's prompt_tokens_details.cached_tokens; pricing reads it).
 * `writes`: those it wrote there, named beyond the vendor's shape (cache_creation_tokens), so only
 * where the answer may go beyond it (not under strict vendor compliance); pricing reads them too.
 */
export function usageOf(prompt: number, completion: number, cached?: number, writes?: CacheWrites): ChatUsage {
  const usage: ChatUsage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  const written = writes !== undefined && writes.tokens > 0;
  if (cached === undefined && !written) return usage;
  const details: NonNullable<ChatUsage['prompt_tokens_details']> = { cached_tokens: cached ?? 0 };
  if (written) {
    details.cache_creation_tokens = writes.tokens;
    if (writes.oneHourTokens > 0) details.cache_creation_1h_tokens = Math.min(writes.oneHourTokens, writes.tokens);
  }
  usage.prompt_tokens_details = details;
  return usage;
}

export function chatCompletion(fields: {
  id: string;
  model: string;
  created: number;
  content: string | null;
  toolCalls: ChatToolCall[];
  reasoning: string | null;
  finishReason: FinishReason;
  usage: ChatUsage;
}): ChatCompletion {
  const message: ChatCompletion['choices'][number]['message'] = { role: 'assistant', content: fields.content, refusal: null };
  if (fields.toolCalls.length > 0) message.tool_calls = fields.toolCalls;
  if (fields.reasoning !== null) message.reasoning_content = fields.reasoning;
  return {
    id: fields.id,
    object: 'chat.completion',
    created: fields.created,
    model: fields.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: fields.finishReason }],
    usage: fields.usage,
  };
}

export function jsonBuffer(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}
