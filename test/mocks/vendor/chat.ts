// POST /v1/chat/completions: `chat.completion` objects, or `chat.completion.chunk` SSE frames.
import type { MockContext } from './context.ts';
import { jsonObject, unixSeconds, vendorId } from './context.ts';
import { badRequest, sendJson } from './respond.ts';
import { contentText, optionalCount, replyFor, words } from './reply-text.ts';
import type { Reply } from './reply-text.ts';
import { DONE, sendEventStream } from './sse.ts';
import type { SseFrame } from './sse.ts';

const FINGERPRINT = 'fp_mock0001';
/** The most choices the service generates for one request (`n`). */
const MAX_CHOICES = 128;

interface ChatRequest {
  model: string;
  n: number;
  reply: Reply;
  promptTokens: number;
  stream: boolean;
  includeUsage: boolean;
  /** Of promptTokens, those of input_audio parts (the mock counts a token per 64 base64 characters). */
  audioPromptTokens: number;
  /** `modalities` asks for audio: the answer is spoken (message.audio, its transcript the reply), two audio tokens a word. */
  audioOut: boolean;
  /** `logprobs: true`: how many `top_logprobs` each token lists (0 up); null without logprobs. */
  logprobs: number | null;
}

/** One token's log probability as the service lists it (the mock's: -0.01 per position), with its top alternatives (itself). */
function tokenLogprob(token: string, at: number, top: number): object {
  const entry = { token, logprob: -0.01 * (at + 1), bytes: [...Buffer.from(token, 'utf8')] };
  return { ...entry, top_logprobs: top === 0 ? [] : [entry] };
}

function logprobsOf(chat: ChatRequest, tokens: readonly string[], from = 0): object | null {
  if (chat.logprobs === null || chat.audioOut) return null;
  return { content: tokens.map((token, i) => tokenLogprob(token, from + i, chat.logprobs!)), refusal: null };
}

/** Of `completionTokens` and `promptTokens`, `audio` are the audio tokens of each side, as the service reports them. */
function usage(promptTokens: number, completionTokens: number, audio: { prompt: number; completion: number } = { prompt: 0, completion: 0 }): object {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: audio.prompt },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: audio.completion, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

/** Base64 characters of input audio per prompt token, in the mock. */
const AUDIO_CHARS_PER_TOKEN = 64;

function audioTokensOf(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  let tokens = 0;
  for (const part of content) {
    const data = (part as { type?: unknown; input_audio?: { data?: unknown } } | null)?.input_audio?.data;
    if ((part as { type?: unknown } | null)?.type === 'input_audio' && typeof data === 'string') tokens += Math.ceil(data.length / AUDIO_CHARS_PER_TOKEN);
  }
  return tokens;
}

/** The mock's count of a chat's prompt: each message's words and 3, and its input audio's tokens (of them, `audioPromptTokens`). */
export function promptTokensOfMessages(messages: readonly unknown[]): { promptTokens: number; audioPromptTokens: number } {
  let promptTokens = 0;
  let audioPromptTokens = 0;
  for (const message of messages) {
    const content = (message as { content?: unknown } | null)?.content;
    const audio = audioTokensOf(content);
    promptTokens += words(contentText(content)).length + 3 + audio;
    audioPromptTokens += audio;
  }
  return { promptTokens, audioPromptTokens };
}

/** Checks the body the way the vendor does; answers 400 itself and returns null on a bad one. */
async function parseChat(ctx: MockContext): Promise<ChatRequest | null> {
  const body = jsonObject(ctx);
  if (body === null) {
    await badRequest(ctx, 'We could not parse the JSON body of your request. The vendor API expects a JSON payload.');
    return null;
  }
  if (typeof body.model !== 'string' || body.model === '') {
    await badRequest(ctx, 'you must provide a model parameter');
    return null;
  }
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    await badRequest(ctx, "Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
    return null;
  }
  const stream = body.stream === true;
  if (body.stream_options != null && !stream) {
    await badRequest(ctx, "The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
    return null;
  }
  const maxTokens = optionalCount(body.max_completion_tokens ?? body.max_tokens);
  const n = optionalCount(body.n);
  if (maxTokens === 'invalid' || n === 'invalid' || n === 0) {
    await badRequest(ctx, 'max_tokens and n must be non-negative integers (n at least 1).', maxTokens === 'invalid' ? 'max_tokens' : 'n');
    return null;
  }
  // The service's bound (a float as large as 1e194 is an integer too, and the mock would build that many choices).
  if (n !== null && n > MAX_CHOICES) {
    await badRequest(ctx, `Invalid 'n': integer above maximum value. Expected a value <= ${MAX_CHOICES}, but got ${n} instead.`, 'n', 'integer_above_max_value');
    return null;
  }
  const audioOut = Array.isArray(body.modalities) && body.modalities.includes('audio');
  if (audioOut && (body.audio === null || typeof body.audio !== 'object')) {
    await badRequest(ctx, "Missing required parameter: 'audio'.", 'audio', 'missing_required_parameter');
    return null;
  }
  const { promptTokens, audioPromptTokens } = promptTokensOfMessages(messages);
  let lastUser = '';
  for (const message of messages) {
    if ((message as { role?: unknown } | null)?.role === 'user') lastUser = contentText((message as { content?: unknown }).content);
  }
  const top = optionalCount(body.top_logprobs);
  if (top === 'invalid' || (top !== null && top > 20) || (top !== null && body.logprobs !== true)) {
    await badRequest(ctx, "Invalid value for 'top_logprobs': an integer from 0 to 20, and only with 'logprobs' set to true.", 'top_logprobs');
    return null;
  }
  const streamOptions = body.stream_options as { include_usage?: unknown } | null | undefined;
  return {
    model: body.model,
    n: n ?? 1,
    reply: replyFor(ctx.label, lastUser, maxTokens),
    promptTokens,
    stream,
    includeUsage: streamOptions?.include_usage === true,
    audioPromptTokens,
    audioOut,
    logprobs: body.logprobs === true ? top ?? 0 : null,
  };
}

export async function chatCompletions(ctx: MockContext): Promise<void> {
  const chat = await parseChat(ctx);
  if (chat === null) return;
  const id = vendorId('chatcmpl-');
  const created = unixSeconds();
  if (chat.stream) {
    await sendEventStream(ctx, chunks(chat, id, created));
    return;
  }
  const content = chat.reply.tokens.join('');
  // A spoken answer: its words as the transcript.
  const audioTokens = audioTokensOfReply(chat);
  const spoken = (): object => ({ id: vendorId('audio_'), data: Buffer.from(`mock speech: ${content}`).toString('base64'), expires_at: created + 3600, transcript: content });
  const choices = [];
  for (let index = 0; index < chat.n; index++) {
    choices.push({
      index,
      message: chat.audioOut ? { role: 'assistant', content: null, refusal: null, annotations: [], audio: spoken() } : { role: 'assistant', content, refusal: null, annotations: [] },
      logprobs: logprobsOf(chat, chat.reply.tokens),
      finish_reason: chat.reply.finishReason,
    });
  }
  await sendJson(ctx, 200, {
    id,
    object: 'chat.completion',
    created,
    model: chat.model,
    choices,
    usage: usage(chat.promptTokens, (chat.reply.tokens.length + audioTokens) * chat.n, { prompt: chat.audioPromptTokens, completion: audioTokens * chat.n }),
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
  });
}

/** A spoken answer's audio tokens, streamed or not: two a word (none for a written one). */
function audioTokensOfReply(chat: ChatRequest): number {
  return chat.audioOut ? chat.reply.tokens.length * 2 : 0;
}

/** Frames made lazily, so a long scripted stream costs no memory up front. */
function* chunks(chat: ChatRequest, id: string, created: number): Generator<SseFrame> {
  const frame = (choices: object[]): object => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: chat.model,
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
    choices,
    ...(chat.includeUsage ? { usage: null } : {}),
  });
  // A spoken answer streams its audio in pieces, each with its part of the transcript, as the
  // service does: the first names the audio's id, the last its expiry; the text content stays null.
  const audioId = chat.audioOut ? vendorId('audio_') : '';
  for (let index = 0; index < chat.n; index++) {
    yield frame([{ index, delta: { role: 'assistant', content: chat.audioOut ? null : '', refusal: null }, logprobs: null, finish_reason: null }]);
  }
  for (let at = 0; at < chat.reply.tokens.length; at++) {
    const token = chat.reply.tokens[at]!;
    for (let index = 0; index < chat.n; index++) {
      const delta = chat.audioOut ? { audio: { ...(at === 0 ? { id: audioId } : {}), transcript: token, data: Buffer.from(`speech:${token}`).toString('base64') } } : { content: token };
      yield frame([{ index, delta, logprobs: logprobsOf(chat, [token], at), finish_reason: null }]);
    }
  }
  for (let index = 0; index < chat.n; index++) {
    if (chat.audioOut) yield frame([{ index, delta: { audio: { id: audioId, expires_at: created + 3600 } }, logprobs: null, finish_reason: null }]);
    yield frame([{ index, delta: {}, logprobs: null, finish_reason: chat.reply.finishReason }]);
  }
  if (chat.includeUsage) {
    const audioTokens = audioTokensOfReply(chat);
    yield { ...frame([]), usage: usage(chat.promptTokens, (chat.reply.tokens.length + audioTokens) * chat.n, { prompt: chat.audioPromptTokens, completion: audioTokens * chat.n }) };
  }
  yield DONE;
}
