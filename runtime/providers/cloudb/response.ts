// generateContent answers → chat completions: candidates become choices, `functionCall` parts tool
// calls (with ids the gateway makes, as the provider gives none), finish reasons and usage renamed.
import { randomBytes } from 'node:crypto';
import { unixNow, type ChatUsage, type FinishReason } from '../shared/chat-chunks.ts';
import type { ChatCompletion, ChatToolCall } from '../shared/chat.ts';
import { bodyExcerpt, jsonObjectOf, mappedError, type MappedError, stringOr } from '../shared/errors.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';
import type { KeptThinking } from '../types.ts';
import { collectSignedCall } from './kept-thinking.ts';
import { handOver, ThinkingCollector } from '../shared/kept-thinking.ts';

export interface ResponsePart {
  text?: string;
  thought?: boolean;
  functionCall?: { name: string; args?: Record<string, unknown> };
  /** A thinking model's thought, encrypted, on the part it led to (kept-thinking.ts). */
  thoughtSignature?: string;
}

export interface Candidate {
  index?: number;
  content?: { role?: string; parts?: ResponsePart[] };
  finishReason?: string;
}

export interface UsageMetadata {
  promptTokenCount?: number;
  /** Of the prompt tokens, those read from a cache (cachedContent, or the model's implicit cache). */
  cachedContentTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
}

export interface GenerateContentResponse {
  candidates?: Candidate[];
  usageMetadata?: UsageMetadata;
  modelVersion?: string;
  responseId?: string;
  promptFeedback?: { blockReason?: string };
}

export function toolCallId(): string {
  return `call_${randomBytes(12).toString('base64url')}`;
}

export function finishReasonOf(reason: string | undefined, calledTools: boolean): FinishReason {
  switch (reason) {
    case 'MAX_TOKENS': return 'length';
    case 'SAFETY': case 'RECITATION': case 'BLOCKLIST': case 'PROHIBITED_CONTENT': case 'SPII': case 'IMAGE_SAFETY': return 'content_filter';
    default: return calledTools ? 'tool_calls' : 'stop';
  }
}

export function usageOf(usage: UsageMetadata | undefined): ChatUsage {
  const prompt = usage?.promptTokenCount ?? 0;
  // Thinking tokens are billed as output: the vendor counts its reasoning tokens in completion_tokens.
  const completion = (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0);
  const result: ChatUsage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: usage?.totalTokenCount ?? prompt + completion };
  if (typeof usage?.cachedContentTokenCount === 'number') result.prompt_tokens_details = { cached_tokens: usage.cachedContentTokenCount };
  if (typeof usage?.thoughtsTokenCount === 'number') result.completion_tokens_details = { reasoning_tokens: usage.thoughtsTokenCount };
  return result;
}

/** `keep` hears each candidate's thought signatures with the tool call ids given to its calls (kept-thinking.ts). */
export function fromGenerateContentResponse(response: GenerateContentResponse, model: string, strict: boolean, keep: ((kept: KeptThinking) => void) | null = null): ChatCompletion {
  const candidates = response.candidates ?? [];
  const choices: ChatCompletion['choices'] = candidates.map((candidate, position) => {
    let text = '';
    let reasoning: string | null = null;
    const toolCalls: ChatToolCall[] = [];
    const signatures = keep === null ? null : new ThinkingCollector();
    for (const part of candidate.content?.parts ?? []) {
      if (part.functionCall !== undefined) {
        const id = toolCallId();
        if (signatures !== null) collectSignedCall(signatures, id, part);
        toolCalls.push({ id, type: 'function', function: { name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) } });
      } else if (typeof part.text === 'string') {
        if (part.thought === true) {
          if (!strict) reasoning = (reasoning ?? '') + part.text;
        } else text += part.text;
      }
    }
    if (signatures !== null) handOver(keep, () => signatures.kept());
    const message: ChatCompletion['choices'][number]['message'] = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text, refusal: null };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    if (reasoning !== null) message.reasoning_content = reasoning;
    return { index: candidate.index ?? position, message, logprobs: null, finish_reason: finishReasonOf(candidate.finishReason, toolCalls.length > 0) };
  });
  if (choices.length === 0) {
    // The prompt itself was blocked: no candidates, only promptFeedback.
    choices.push({ index: 0, message: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: response.promptFeedback?.blockReason !== undefined ? 'content_filter' : 'stop' });
  }
  return {
    id: response.responseId ?? `chatcmpl-${randomBytes(9).toString('base64url')}`,
    object: 'chat.completion',
    created: unixNow(),
    model: response.modelVersion ?? model,
    choices,
    usage: usageOf(response.usageMetadata),
  };
}

/** `{error: {code, message, status}}` (an array of them from some endpoints) → the gateway error body. */
export function fromCloudbError(provider: string, status: number, body: Buffer): MappedError {
  let json: unknown = jsonObjectOf(body);
  if (json === null) {
    try {
      const parsed: unknown = parseJson(body.toString('utf8'));
      if (Array.isArray(parsed)) json = parsed[0];
    } catch {
      // not JSON
    }
  }
  const inner = (json as { error?: { message?: unknown; status?: unknown } } | null)?.error;
  return mappedError(provider, status, stringOr(inner?.message, bodyExcerpt(body, status))!, stringOr(inner?.status, null));
}

const STATUS_OF: Readonly<Record<string, number>> = {
  INVALID_ARGUMENT: 400, FAILED_PRECONDITION: 400, OUT_OF_RANGE: 400, UNAUTHENTICATED: 401, PERMISSION_DENIED: 403,
  NOT_FOUND: 404, ALREADY_EXISTS: 409, RESOURCE_EXHAUSTED: 429, CANCELLED: 499, UNAVAILABLE: 503, DEADLINE_EXCEEDED: 504,
};

/** The google.rpc status name an HTTP status is answered with (the API's canonical mapping). */
const NAME_OF: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 409: 'ALREADY_EXISTS',
  429: 'RESOURCE_EXHAUSTED', 499: 'CANCELLED', 500: 'INTERNAL', 501: 'UNIMPLEMENTED', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED',
};

/** The google.rpc status name of an HTTP status; UNKNOWN for one without its own. */
export function rpcNameOf(status: number): string {
  return Object.hasOwn(NAME_OF, status) ? NAME_OF[status] : 'UNKNOWN';
}

/** HTTP status of a google.rpc status name (for errors that arrive inside a stream). */
export function statusOfRpc(status: unknown, code: unknown): number {
  if (typeof code === 'number' && code >= 400 && code < 600) return code;
  return typeof status === 'string' && Object.hasOwn(STATUS_OF, status) ? STATUS_OF[status] : 500;
}
