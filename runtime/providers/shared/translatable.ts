// What a chat request must be before a family's translation reads it (the messages API, cloud B,
// cloud C): the fields it reads in the vendor's shapes, and only parameters it reads or knowingly
// drops. Anything else would be dropped on the way, or fail inside the translation.
import { GatewayError } from '../../core/errors.ts';
import { type GeneratedValidator, validateBody } from '../../core/validate.ts';
import { validateChatCompletionTranslated } from '../../../generated/validators.js';
import type { ChatRequest } from './chat.ts';

/** What every translating adapter reads or checks itself (messages, tools, limits, the stream, shape checks). */
export const CHAT_PARAMS_READ: readonly string[] = [
  'model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'stop', 'n', 'tools', 'tool_choice', 'response_format', 'logprobs',
];

/**
 * Chat parameters a family without them drops (docs/providers.md): hints about sampling, caching,
 * billing and the caller, which leave the answer's shape as it is, so that a fallback from a vendor
 * target to another family does not fail on them.
 */
export const DROPPED_CHAT_HINTS: ReadonlySet<string> = new Set([
  'seed', 'presence_penalty', 'frequency_penalty', 'logit_bias', 'user', 'metadata', 'store', 'service_tier', 'prompt_cache_key', 'prompt_cache_retention', 'prompt_cache_options', 'safety_identifier', 'parallel_tool_calls',
]);

/**
 * Any other parameter the family's adapter does not read (`reasoning_effort`, `modalities`, `audio`,
 * `web_search_options`, a misspelt `temprature`) would be dropped on the way: refused instead.
 */
export function refuseUnreadParams(request: Readonly<Record<string, unknown>>, reads: ReadonlySet<string>, provider: string): void {
  for (const key in request) {
    if (reads.has(key) || DROPPED_CHAT_HINTS.has(key) || request[key] === undefined) continue;
    throw new GatewayError('unsupported_parameter', `The provider "${provider}" has no "${key}" parameter, and the gateway does not map it: it would have no effect.`, key);
  }
}

/**
 * What a translation needs before it reads a request: the fields it reads in the vendor's shapes
 * (schema/requests/chat-completion-translated.json; a malformed tool or tool call is a 400 naming
 * it, not a failure inside the translation, and a temperature sent as text is not skipped), only
 * parameters it reads or drops, and function tools only.
 */
export function checkTranslatable(request: ChatRequest, reads: ReadonlySet<string>, provider: string): void {
  validateBody(validateChatCompletionTranslated as GeneratedValidator, request);
  refuseUnreadParams(request, reads, provider);
  checkStreamOptions(request, provider);
  request.tools?.forEach((tool, i) => {
    if (tool.type !== 'function') throw new GatewayError('unsupported_parameter', `Tools of type "${tool.type}" cannot be sent to the provider "${provider}": only function tools are translated.`, `/tools/${i}/type`);
  });
}

/**
 * `stream_options` shapes a stream: without `stream: true` it has no effect (the vendor refuses it
 * too). A translated stream carries no obfuscation padding, so asking for it is refused.
 */
function checkStreamOptions(request: ChatRequest, provider: string): void {
  const options = request.stream_options as { include_obfuscation?: boolean | null } | null | undefined;
  if (options === undefined || options === null) return;
  if (request.stream !== true) throw new GatewayError('invalid_request_body', 'Invalid request body: stream_options applies to a streamed answer; set stream: true or leave it out.', '/stream_options');
  if (options.include_obfuscation === true) {
    throw new GatewayError('unsupported_parameter', `The gateway translates this stream from the provider "${provider}" and adds no obfuscation padding to its chunks: leave include_obfuscation out or set it to false.`, '/stream_options/include_obfuscation');
  }
}
