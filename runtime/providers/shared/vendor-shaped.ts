// Adapters for providers that speak the vendor's wire format (the vendor itself and the
// OpenAI-compatible table): the body goes through untouched, only the URL and credential change;
// but for the messages API's create call, which they answer as a chat completion (messages-as-chat.ts).
import { GatewayError } from '../../core/errors.ts';
import type { EndpointKind, PreparedCall, ProviderAdapter, ProviderCall, ResponseMapping } from '../types.ts';
import { vendorShapedError } from './errors.ts';
import { joinUrl } from './url.ts';
import { providerEntry } from '../../../compiler/config/providers.ts';
import { callAskingStreamUsage, streamUsageMapping } from './stream-usage.ts';
import { vendorStreamOpening } from './stream-opening.ts';
import { messagesCallOf, refuseMessagesQuery } from './messages-call.ts';
import { chatOfMessages, type MaxTokensField } from './messages-as-chat.ts';
import { messagesOfChatResponse } from './chat-as-messages.ts';

/** The inference endpoints whose error bodies are rewritten to name the provider. */
const MAPPED_ERRORS: ReadonlySet<EndpointKind> = new Set(['chat', 'completions', 'embeddings']);

export interface VendorShapedOptions {
  name: string;
  baseUrl: string;
  /** Endpoints the provider has; `passthrough` is always allowed. */
  endpoints: ReadonlySet<EndpointKind>;
  /** Local servers (ollama, vllm, …) run without a key; hosted ones refuse the request without. */
  keyRequired: boolean;
  /**
   * Streams get the provider's usage chunk, kept from the client that did not ask for it
   * (schema/providers.json `asks_stream_usage`). `ownHost`: only at the adapter's base URL, since a
   * custom_host may be another kind of server (the vendor's); `anyHost`: at a custom_host too (a
   * self-hosted server of the kind the name says). False: never.
   */
  asksStreamUsage: 'ownHost' | 'anyHost' | false;
  /** Extra headers from provider options (the vendor's organization and project). */
  extraHeaders?(call: ProviderCall): Record<string, string>;
  /** Where the chat API takes the answer's token limit, for the messages API's `max_tokens` (messages-as-chat.ts); `max_tokens` unless said. */
  maxTokensField?: MaxTokensField;
}

export function vendorShapedAdapter(options: VendorShapedOptions): ProviderAdapter {
  const { name, baseUrl, endpoints, keyRequired, asksStreamUsage } = options;
  const bodyCall = vendorBodyCall(name);
  return {
    name,
    readsBody: () => false,
    streamOpening: vendorStreamOpening,
    prepare(call: ProviderCall): PreparedCall {
      if (call.endpoint !== 'passthrough' && !endpoints.has(call.endpoint)) throw notSupported(name, call.endpoint);
      const headers: Record<string, string> = options.extraHeaders?.(call) ?? {};
      if (call.apiKey !== null) headers.authorization = `Bearer ${call.apiKey}`;
      else if (keyRequired) throw missingKey(name);
      const asksUsage = asksStreamUsage !== false && (asksStreamUsage === 'anyHost' || call.customHost === null);
      const chat = messagesChatOf(name, call, options.maxTokensField ?? 'max_tokens');
      if (chat !== null) return messagesAsChatCall(name, chat, joinUrl(call.customHost ?? baseUrl, '/chat/completions'), headers, asksUsage);
      const url = joinUrl(call.customHost ?? baseUrl, call.path);
      return bodyCall(call, url, headers, asksUsage);
    },
  };
}

/**
 * The call of a provider that takes the vendor's bodies (the vendor-shaped adapters and cloud A),
 * once its URL and headers are known. `asksUsage`: the provider takes
 * `stream_options.include_usage` here (stream-usage.ts).
 */
export type VendorBodyCall = (call: ProviderCall, url: string, headers: Record<string, string>, asksUsage: boolean) => PreparedCall;

export function vendorBodyCall(provider: string): VendorBodyCall {
  const error = (status: number, body: Buffer): unknown => vendorShapedError(provider, status, body);
  const errorMapping: ResponseMapping = { provider, error };
  const usageMapping = streamUsageMapping(provider, error);
  return (call, url, headers, asksUsage) => {
    // Strict compliance: the client's bytes to the provider, and the vendor's bytes back exactly,
    // without the gateway's `provider` field in errors.
    if (call.strictVendorCompliance) return { url, method: call.method, headers, body: call.rawBody, response: null };
    const asking = asksUsage ? callAskingStreamUsage(call) : null;
    if (asking !== null) return { url, method: call.method, headers, body: asking, response: usageMapping };
    return { url, method: call.method, headers, body: call.rawBody, response: MAPPED_ERRORS.has(call.endpoint) ? errorMapping : null };
  };
}

/**
 * The chat completion a pass-through call to a provider of the vendor's API stands for when it is
 * the messages API's create call (messages-as-chat.ts); null for any other call. Its token count has
 * no chat equivalent: refused.
 */
export function messagesChatOf(provider: string, call: ProviderCall, maxTokensField: MaxTokensField): Record<string, unknown> | null {
  const kind = call.endpoint === 'passthrough' ? messagesCallOf(call.method, call.path) : null;
  if (kind === null) return null;
  if (kind === 'count') {
    throw new GatewayError('endpoint_not_supported', `The provider "${provider}" has no token count for the messages API: its count_tokens reaches Claude only (the anthropic, cloudb and cloudc providers).`, 'provider', { provider, endpoint: 'passthrough' });
  }
  refuseMessagesQuery(call.path, provider, 'chat completions');
  return chatOfMessages(call.rawBody, maxTokensField);
}

/** That chat completion sent to `url`, its answer back as the messages API's (chat-as-messages.ts); `asksUsage`: a stream asks for the usage chunk. */
export function messagesAsChatCall(provider: string, chat: Record<string, unknown>, url: string, headers: Record<string, string>, asksUsage: boolean): PreparedCall {
  const streamed = chat.stream === true;
  if (streamed && asksUsage) chat.stream_options = { include_usage: true };
  return {
    url,
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: streamed ? 'text/event-stream' : 'application/json' },
    body: Buffer.from(JSON.stringify(chat)),
    response: messagesOfChatResponse(provider, streamed),
  };
}

/** The typed endpoints schema/providers.json lists for a provider (pass-through is not among them: it always goes). */
export function manifestEndpoints(provider: string): ReadonlySet<EndpointKind> {
  const entry = providerEntry(provider);
  if (entry === undefined) throw new Error(`${provider} is not in schema/providers.json`);
  return new Set(entry.endpoints);
}

export function notSupported(provider: string, endpoint: EndpointKind): GatewayError {
  return new GatewayError('endpoint_not_supported', `The provider "${provider}" has no ${endpointLabel(endpoint)} endpoint.`, 'provider', { provider, endpoint });
}

export function missingKey(provider: string): GatewayError {
  return new GatewayError('missing_provider_credentials', `The provider "${provider}" needs a credential: send Authorization: Bearer <token> or set api_key.`, 'authorization', { provider });
}

export function missingOption(provider: string, option: string, why = ''): GatewayError {
  return new GatewayError('missing_provider_option', `The provider "${provider}" needs ${option}${why}.`, option, { provider });
}

function endpointLabel(endpoint: EndpointKind): string {
  switch (endpoint) {
    case 'chat': return 'chat completions';
    case 'completions': return 'text completions';
    default: return endpoint;
  }
}
