// converse answers → chat completions, and converse errors (message in the body, error type in
// x-amzn-errortype) → the gateway error body.
import { randomBytes } from 'node:crypto';
import { unixNow, type ChatUsage, type FinishReason } from '../shared/chat-chunks.ts';
import { chatCompletion, type ChatCompletion, type ChatToolCall, usageOf as chatUsage } from '../shared/chat.ts';
import { bodyExcerpt, jsonObjectOf, mappedError, type MappedError, stringOr } from '../shared/errors.ts';

export interface ConverseUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
  /** cacheWriteInputTokens by the TTL they were written for (`5m`, `1h`). */
  cacheDetails?: { ttl?: string; inputTokens?: number }[];
}

export interface ConverseResponse {
  output?: {
    message?: {
      role?: string;
      content?: ({ text?: string; toolUse?: { toolUseId: string; name: string; input?: unknown }; reasoningContent?: { reasoningText?: { text?: string } } })[];
    };
  };
  stopReason?: string;
  usage?: ConverseUsage;
}

export function finishReasonOf(reason: string | undefined): FinishReason {
  switch (reason) {
    case 'max_tokens': return 'length';
    case 'tool_use': return 'tool_calls';
    case 'guardrail_intervened': case 'content_filtered': return 'content_filter';
    default: return 'stop';
  }
}

/**
 * The vendor's usage of converse's: inputTokens count only what was neither read from nor written to
 * the prompt cache, while the vendor's prompt tokens count every input token and name the ones read
 * from the cache (cached_tokens, priced lower). Cache writes, billed above the input price, are named
 * beside them (cache_creation_tokens, and cache_creation_1h_tokens for the hour-long ones, which
 * cacheDetails names) unless `strict` keeps the answer to the vendor's shape.
 */
export function usageOf(usage: ConverseUsage | undefined, strict: boolean): ChatUsage {
  const read = usage?.cacheReadInputTokens;
  const write = usage?.cacheWriteInputTokens;
  const prompt = (usage?.inputTokens ?? 0) + (read ?? 0) + (write ?? 0);
  const completion = usage?.outputTokens ?? 0;
  if (read === undefined && write === undefined) return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: usage?.totalTokens ?? prompt + completion };
  return chatUsage(prompt, completion, read ?? 0, strict ? undefined : { tokens: write ?? 0, oneHourTokens: hourLongWrites(usage?.cacheDetails) });
}

function hourLongWrites(details: ConverseUsage['cacheDetails']): number {
  let tokens = 0;
  if (Array.isArray(details)) for (const detail of details) if (detail?.ttl === '1h' && typeof detail.inputTokens === 'number') tokens += detail.inputTokens;
  return tokens;
}

export function completionId(): string {
  return `chatcmpl-${randomBytes(12).toString('base64url')}`;
}

export function fromConverseResponse(response: ConverseResponse, model: string, strict: boolean): ChatCompletion {
  let text = '';
  let reasoning: string | null = null;
  const toolCalls: ChatToolCall[] = [];
  for (const block of response.output?.message?.content ?? []) {
    if (typeof block.text === 'string') text += block.text;
    else if (block.toolUse !== undefined) {
      toolCalls.push({ id: block.toolUse.toolUseId, type: 'function', function: { name: block.toolUse.name, arguments: JSON.stringify(block.toolUse.input ?? {}) } });
    } else if (block.reasoningContent?.reasoningText?.text !== undefined && !strict) {
      reasoning = (reasoning ?? '') + block.reasoningContent.reasoningText.text;
    }
  }
  return chatCompletion({
    id: completionId(),
    model,
    created: unixNow(),
    content: text === '' && toolCalls.length > 0 ? null : text,
    toolCalls,
    reasoning,
    finishReason: finishReasonOf(response.stopReason),
    usage: usageOf(response.usage, strict),
  });
}

/** `ValidationException:http://internal…` → `ValidationException`. */
export function errorTypeOf(headers: Readonly<Record<string, string | string[]>>): string | null {
  const value = headers['x-amzn-errortype'];
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' && text !== '' ? text.split(':')[0] : null;
}

export function fromConverseError(provider: string, status: number, body: Buffer, headers: Readonly<Record<string, string | string[]>>): MappedError {
  const json = jsonObjectOf(body);
  const message = stringOr(json?.message, null) ?? stringOr(json?.Message, null) ?? bodyExcerpt(body, status);
  return mappedError(provider, status, message, errorTypeOf(headers) ?? stringOr(json?.__type, null));
}

const EXCEPTION_STATUS: Readonly<Record<string, number>> = {
  validationexception: 400, accessdeniedexception: 403, resourcenotfoundexception: 404, modeltimeoutexception: 408,
  throttlingexception: 429, servicequotaexceededexception: 429, internalserverexception: 500, modelstreamerrorexception: 424,
  serviceunavailableexception: 503, modelnotreadyexception: 429,
};

/** HTTP status of an exception named inside an event stream. */
export function statusOfException(type: string): number {
  return EXCEPTION_STATUS[type.toLowerCase()] ?? 500;
}
