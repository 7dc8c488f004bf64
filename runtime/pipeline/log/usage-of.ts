// Token usage as each API reports it, read into the record's TokenUsage: the vendor's `usage` (chat,
// completions, embeddings, Responses, audio, images) and the dialects of the families' own chat APIs
// the pass-through meters; and the gateway's estimates where an answer reported none, or not all.
import type { TokenUsage } from '../../core/request-record.ts';
import { tokensOfBytes } from '../../core/token-estimate.ts';
import { chatUsageOf, type MessagesUsage } from '../../providers/anthropic/response.ts';
import { usageOf as generateContentChatUsageOf, type UsageMetadata } from '../../providers/cloudb/response.ts';
import { usageOf as converseChatUsageOf, type ConverseUsage } from '../../providers/cloudc/response.ts';

/** A family's own chat API, passed through as it is (UsageDialect). */
export type ChatDialect = 'messages' | 'generateContent' | 'converse';

/**
 * Whose answers a tap reads: the vendor's shape (chat, completions, embeddings, Responses, audio,
 * images), or a family's own API passed through as it is (pipeline/metered-pass-through.ts): the
 * messages API's (`usage` counts prompt-cache reads and writes apart from `input_tokens`; a stream
 * reports usage in message_start and message_delta; a Claude model's invoke through cloud C speaks
 * it too, its stream's events inside AWS's event stream), cloud B's generateContent (`usageMetadata`
 * and `modelVersion` on the answer, or on each event of a stream; a stream without `alt=sse` is one
 * JSON array of such answers) or cloud C's converse (`usage` on the answer, which names no model; a
 * stream is AWS's binary event stream, read by event-stream-usage-tap.ts); or cloud B's embeddings
 * (`:predict` on a text embedding model: each prediction's `statistics.token_count`, summed by
 * predict-usage.ts; the answer names no model); cloud B's image generation (`imagePredict`:
 * `:predict` on an Imagen model, billed per image: the images its predictions carry, counted by
 * predict-usage.ts); or cloud C's invoke of a model whose body is its
 * vendor's own format (`invoke`: the counts the service reports beside it, in the answer's
 * `x-amzn-bedrock-input-token-count` / `-output-token-count` headers, or a stream's last chunk's
 * `amazon-bedrock-invocationMetrics`).
 */
export type UsageDialect = 'vendor' | ChatDialect | 'predict' | 'imagePredict' | 'invoke';

const CHAT_DIALECTS: ReadonlySet<UsageDialect> = new Set<ChatDialect>(['messages', 'generateContent', 'converse']);

/** Whether `dialect` is a family's chat API's (cloud B's :predict and cloud C's other invoke are not: they never stream SSE). */
export function isChatDialect(dialect: UsageDialect): dialect is ChatDialect {
  return CHAT_DIALECTS.has(dialect);
}

/** The gateway's estimate of an answer that reported no usage: its request's input tokens, and the tokens of `outputBytes` of generated text. */
export function estimatedUsage(inputTokens: number, outputBytes: number): TokenUsage {
  const output = tokensOfBytes(outputBytes);
  return { inputTokens, outputTokens: output, cachedInputTokens: 0, totalTokens: inputTokens + output, estimated: true };
}

/**
 * The usage of a stream cut before its last count: the input it counted, and the output it counted
 * or the estimate of what it generated (`outputBytes` of text), whichever is more; marked as
 * estimated. Null when it counted nothing.
 */
export function cutShortUsage(counted: TokenUsage | null, outputBytes: number): TokenUsage | null {
  if (counted === null) return null;
  const output = Math.max(counted.outputTokens, tokensOfBytes(outputBytes));
  return { ...counted, outputTokens: output, totalTokens: counted.inputTokens + output, estimated: true };
}

/** The service's header of an invoke answer's input tokens; its output's, and its prompt cache's reads and writes (counted as input, as converse's are). */
const INVOKE_COUNT_HEADERS = {
  input: 'x-amzn-bedrock-input-token-count',
  output: 'x-amzn-bedrock-output-token-count',
  cacheRead: 'x-amzn-bedrock-cache-read-input-token-count',
  cacheWrite: 'x-amzn-bedrock-cache-write-input-token-count',
} as const;

/** A header's count: a non-negative integer; null when absent or anything else. */
function headerCount(value: unknown): number | null {
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value.trim())) return null;
  return Number(value.trim());
}

/** The counts cloud C's invoke answer reports in its headers; null when it reports none (some vendors' models). */
export function invokeHeadersUsageOf(headers: Readonly<Record<string, unknown>>): TokenUsage | null {
  const input = headerCount(headers[INVOKE_COUNT_HEADERS.input]);
  if (input === null) return null;
  return invocationUsage(input, headerCount(headers[INVOKE_COUNT_HEADERS.output]) ?? 0, headerCount(headers[INVOKE_COUNT_HEADERS.cacheRead]) ?? 0, headerCount(headers[INVOKE_COUNT_HEADERS.cacheWrite]) ?? 0);
}

/** The counts an invoke stream's last chunk reports (`amazon-bedrock-invocationMetrics`); null for another value. */
export function invocationMetricsUsageOf(value: unknown): TokenUsage | null {
  if (value === null || typeof value !== 'object') return null;
  const m = value as Record<string, unknown>;
  const input = count(m.inputTokenCount);
  if (input === null || !Number.isSafeInteger(input)) return null;
  const integer = (v: unknown): number => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : 0);
  return invocationUsage(input, integer(m.outputTokenCount), integer(m.cacheReadInputTokenCount), integer(m.cacheWriteInputTokenCount));
}

/** The service counts an invoke's input apart from its cache's reads and writes, as converse does: read as converse's usage is. */
function invocationUsage(input: number, output: number, cacheRead: number, cacheWrite: number): TokenUsage {
  const usage: ConverseUsage = { inputTokens: input, outputTokens: output, totalTokens: input + output };
  if (cacheRead > 0) usage.cacheReadInputTokens = cacheRead;
  if (cacheWrite > 0) usage.cacheWriteInputTokens = cacheWrite;
  return converseUsageOf(usage)!;
}

/** converse's usage → TokenUsage, read as the translation reads it (cache reads and writes counted as input). */
export function converseUsageOf(value: unknown): TokenUsage | null {
  if (value === null || typeof value !== 'object' || typeof (value as ConverseUsage).inputTokens !== 'number') return null;
  return usageOf(converseChatUsageOf(value as ConverseUsage, false));
}

/** generateContent's usageMetadata → TokenUsage, read as the translation reads it (thinking tokens are output, cache reads input). */
export function generateContentUsageOf(value: unknown): TokenUsage | null {
  if (value === null || typeof value !== 'object' || typeof (value as UsageMetadata).promptTokenCount !== 'number') return null;
  return usageOf(generateContentChatUsageOf(value as UsageMetadata));
}

/** The messages API's usage object → TokenUsage, its input counting cache reads and writes as the translation's does (chatUsageOf). */
export function messagesUsageOf(value: unknown): TokenUsage | null {
  if (value === null || typeof value !== 'object' || typeof (value as MessagesUsage).input_tokens !== 'number') return null;
  return usageOf(chatUsageOf(value as MessagesUsage, false));
}

/**
 * The vendor's usage object → TokenUsage: chat, completions and embeddings (`prompt_tokens`), the
 * Responses API, images and transcriptions (`input_tokens`; a transcription's details are
 * `input_token_details`). A transcription billed by its length (`"type": "duration"`, whisper) has
 * its seconds and no tokens.
 */
export function usageOf(value: unknown): TokenUsage | null {
  if (value === null || typeof value !== 'object') return null;
  const u = value as Record<string, unknown>;
  if (u.type === 'duration') {
    const seconds = count(u.seconds);
    return seconds === null ? null : { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0, audioSeconds: seconds, estimated: false };
  }
  const input = count(u.prompt_tokens) ?? count(u.input_tokens);
  const output = count(u.completion_tokens) ?? count(u.output_tokens) ?? 0;
  if (input === null) return null;
  const details = (u.prompt_tokens_details ?? u.input_tokens_details ?? u.input_token_details) as Record<string, unknown> | null | undefined;
  const cached = count(details?.cached_tokens) ?? 0;
  const usage: TokenUsage = { inputTokens: input, outputTokens: output, cachedInputTokens: cached, totalTokens: count(u.total_tokens) ?? input + output, estimated: false };
  // Prompt-cache writes, which the translations of the messages API and cloud C name (providers/shared/chat.ts usageOf).
  const written = count(details?.cache_creation_tokens);
  if (written !== null && written > 0) {
    usage.cacheCreationInputTokens = written;
    const hour = count(details?.cache_creation_1h_tokens);
    if (hour !== null && hour > 0) usage.cacheCreation1hInputTokens = hour;
  }
  // An audio model's spoken input and answer, priced apart from text.
  const audioIn = count(details?.audio_tokens);
  if (audioIn !== null && audioIn > 0) usage.audioInputTokens = audioIn;
  const audioOut = count((u.completion_tokens_details as Record<string, unknown> | null | undefined)?.audio_tokens);
  if (audioOut !== null && audioOut > 0) usage.audioOutputTokens = audioOut;
  // An image model's input images (an image edit's), priced apart from the prompt's text.
  const imageIn = count(details?.image_tokens);
  if (imageIn !== null && imageIn > 0) usage.imageInputTokens = imageIn;
  // The characters a model bills by, which cloud B's embeddings translation names beside the tokens.
  const characters = count(u.input_characters);
  if (characters !== null) usage.inputCharacters = characters;
  return usage;
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/**
 * A realtime response's `usage` (its `response.done` event, runtime/pipeline/log/realtime-usage-tap.ts)
 * → TokenUsage. Its input's audio and image tokens count the cached ones too
 * (`input_token_details.cached_tokens_details`), which are priced as cached input: the record's
 * audio and image input are those not served from the cache.
 */
export function realtimeUsageOf(value: unknown): TokenUsage | null {
  if (value === null || typeof value !== 'object') return null;
  const u = value as Record<string, unknown>;
  const input = count(u.input_tokens);
  if (input === null) return null;
  const output = count(u.output_tokens) ?? 0;
  const details = objectOr(u.input_token_details);
  const cachedDetails = objectOr(details.cached_tokens_details);
  const usage: TokenUsage = { inputTokens: input, outputTokens: output, cachedInputTokens: count(details.cached_tokens) ?? 0, totalTokens: count(u.total_tokens) ?? input + output, estimated: false };
  const cachedAudio = count(cachedDetails.audio_tokens) ?? 0;
  const audioIn = (count(details.audio_tokens) ?? 0) - cachedAudio;
  if (audioIn > 0) usage.audioInputTokens = audioIn;
  if (cachedAudio > 0) usage.cachedAudioInputTokens = cachedAudio;
  const imageIn = (count(details.image_tokens) ?? 0) - (count(cachedDetails.image_tokens) ?? 0);
  if (imageIn > 0) usage.imageInputTokens = imageIn;
  const audioOut = count(objectOr(u.output_token_details).audio_tokens);
  if (audioOut !== null && audioOut > 0) usage.audioOutputTokens = audioOut;
  return usage;
}

function objectOr(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}
