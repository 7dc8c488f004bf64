// The messages API's create call (`POST /v1/messages`) to a target that does not answer it as itself
// (ProviderAdapter.answersMessages: Claude's hosts do): the transport sends it as the chat completion it
// stands for (providers/shared/messages-as-chat.ts), through the adapter's own chat call, with all
// that goes with one (its translation, the thinking it keeps between turns), and reads the answer back
// in the messages API's shapes over the adapter's (chat-as-messages.ts). Routing picks the target,
// so one body reaches Claude as itself and any other model as a chat, and falls back from one to the other.
import { GatewayError } from '../core/errors.ts';
import { messagesCallOf, refuseMessagesQuery } from '../providers/shared/messages-call.ts';
import { chatOfMessages } from '../providers/shared/messages-as-chat.ts';
import type { ProviderAdapter, ProviderCall } from '../providers/types.ts';

export type MessagesCall = NonNullable<ReturnType<typeof messagesCallOf>>;

/**
 * Which of the messages API's calls a pass-through call to `adapter` is, when it may go as a chat:
 * null for any other call, and for every call to the messages API's own host (which answers them
 * all as they are, its bodies never read for this).
 */
export function messagesCallIn(adapter: ProviderAdapter, endpoint: string, method: string, path: string): MessagesCall | null {
  return endpoint === 'passthrough' && adapter.answersMessages !== true ? messagesCallOf(method, path) : null;
}

/**
 * The chat completion a messages call to `adapter` stands for, its `body` read (override_params
 * applied); null when the adapter answers it as itself. Its token count is the provider's own count
 * of that chat where it has one (`countsChatTokens`: cloud B's countTokens, the vendor's Responses
 * API's input count, a vLLM server's /tokenize); no other provider counts a chat's tokens.
 */
export function chatOfMessagesCall(adapter: ProviderAdapter, call: ProviderCall, kind: MessagesCall, body: Record<string, unknown> | undefined): Record<string, unknown> | null {
  const model = typeof body?.model === 'string' ? body.model : '';
  const answers = adapter.answersMessages;
  if (answers === true || (answers !== undefined && answers(model))) return null;
  if (kind === 'count' && adapter.countsChatTokens !== true) {
    throw new GatewayError('endpoint_not_supported', `The provider "${adapter.name}" has no token count for the messages API${model === '' ? '' : ` and the model "${model}"`}: its count_tokens reaches Claude (on the anthropic, cloudb and cloudc providers), the vendor's models, a vLLM server's and cloud B's other models only.`, 'provider', { provider: adapter.name, endpoint: 'passthrough' });
  }
  refuseMessagesQuery(call.path, adapter.name, kind === 'count' ? 'own token count' : 'chat completions');
  return chatOfMessages(body, adapter.messagesLimitField?.(call) ?? 'max_tokens');
}
