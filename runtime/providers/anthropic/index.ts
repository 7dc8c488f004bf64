// The messages-style API (`anthropic`): the Bearer token becomes `x-api-key` (SPEC §5.2), chat
// completions are translated to messages and back, streams included. Other paths pass through.
import type { EndpointKind, PreparedCall, ProviderAdapter, ProviderCall } from '../types.ts';
import { chatRequestOf, includeUsage } from '../shared/chat.ts';
import { mappedBody } from '../shared/mapped-body.ts';
import { joinUrl, refuseClientQuery } from '../shared/url.ts';
import { manifestEndpoints, missingKey, notSupported } from '../shared/vendor-shaped.ts';
import { toMessagesRequest } from './request.ts';
import { fromMessagesError, fromMessagesResponse, type MessagesResponse } from './response.ts';
import { MessagesStreamMapper, messagesStreamOpening } from './stream.ts';
import { keptThinkingOf } from './kept-thinking.ts';
import { asksThinking, handOver, mappingWithKept } from '../shared/kept-thinking.ts';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com/v1';
export const ANTHROPIC_VERSION = '2023-06-01';

/** The family's provider name in configs, records and error bodies. */
export const ANTHROPIC_PROVIDER = 'anthropic';
const NAME = ANTHROPIC_PROVIDER;
/** The messages API has chat and models only (schema/providers.json). */
const ENDPOINTS: ReadonlySet<EndpointKind> = manifestEndpoints(NAME);

export function anthropicAdapter(baseUrl: string = ANTHROPIC_BASE_URL): ProviderAdapter {
  return {
    name: NAME,
    readsBody: (endpoint) => endpoint === 'chat',
    streamOpening: messagesStreamOpening,
    answersMessages: true,
    keepsThinking: asksThinking,
    prepare(call: ProviderCall): PreparedCall {
      if (call.endpoint !== 'passthrough' && !ENDPOINTS.has(call.endpoint)) throw notSupported(NAME, call.endpoint);
      if (call.apiKey === null) throw missingKey(NAME);
      const base = call.customHost ?? baseUrl;
      const headers: Record<string, string> = { 'x-api-key': call.apiKey, 'anthropic-version': ANTHROPIC_VERSION };
      if (call.endpoint !== 'chat') {
        return { url: joinUrl(base, call.path), method: call.method, headers, body: call.rawBody, response: null };
      }
      refuseClientQuery(NAME, call.path);
      const chat = chatRequestOf(call.body);
      const strict = call.strictVendorCompliance;
      const streamed = chat.stream === true;
      return {
        url: joinUrl(base, '/messages'),
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: streamed ? 'text/event-stream' : 'application/json' },
        body: mappedBody(chat, mappingWithKept('anthropic.messages', call.keptThinking), () => toMessagesRequest(chat, NAME, call.keptThinking)),
        response: {
          provider: NAME,
          json: (body) => {
            const answer = body as MessagesResponse;
            handOver(call.keepThinking, () => keptThinkingOf(answer?.content));
            return fromMessagesResponse(answer, strict);
          },
          ...(streamed ? { stream: () => new MessagesStreamMapper({ provider: NAME, model: String(chat.model ?? ''), includeUsage: includeUsage(chat), strict, keepThinking: call.keepThinking }) } : {}),
          error: (status, body) => fromMessagesError(NAME, status, body),
        },
      };
    },
  };
}
