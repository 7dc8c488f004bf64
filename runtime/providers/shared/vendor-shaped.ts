// Adapters for providers that speak the vendor's wire format (the vendor itself and the
// OpenAI-compatible table): the body goes through untouched, only the URL and credential change.
import { GatewayError } from '../../core/errors.ts';
import type { EndpointKind, PreparedCall, ProviderAdapter, ProviderCall, ResponseMapping } from '../types.ts';
import { vendorShapedError } from './errors.ts';
import { joinUrl } from './url.ts';
import { providerEntry } from '../../../compiler/config/providers.ts';
import { callAskingStreamUsage, streamUsageMapping } from './stream-usage.ts';
import { vendorStreamOpening } from './stream-opening.ts';
import type { MaxTokensField } from './messages-as-chat.ts';

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
  /**
   * How it counts a chat's input tokens (`ProviderAdapter.countsChatTokens`): where it counts, the
   * count's body for a chat, and how its answer reads back. Without it, it counts none.
   */
  chatTokenCount?: ChatTokenCount;
}

export interface ChatTokenCount {
  /** Where it counts, from the base URL its chat calls go to (the adapter's, or the custom_host). */
  url(base: string): string;
  body(chat: Record<string, unknown>): Buffer;
  response(provider: string, error: NonNullable<ResponseMapping['error']>): ResponseMapping;
}

export function vendorShapedAdapter(options: VendorShapedOptions): ProviderAdapter {
  const { name, baseUrl, endpoints, keyRequired, asksStreamUsage } = options;
  const bodyCall = vendorBodyCall(name);
  const count = options.chatTokenCount;
  const countError = (status: number, body: Buffer): unknown => vendorShapedError(name, status, body);
  return {
    name,
    readsBody: () => false,
    streamOpening: vendorStreamOpening,
    ...(options.maxTokensField === undefined ? {} : { messagesLimitField: () => options.maxTokensField! }),
    ...(count === undefined ? {} : { countsChatTokens: true }),
    prepare(call: ProviderCall): PreparedCall {
      if (call.endpoint !== 'passthrough' && !endpoints.has(call.endpoint)) throw notSupported(name, call.endpoint);
      const headers: Record<string, string> = options.extraHeaders?.(call) ?? {};
      if (call.apiKey !== null) headers.authorization = `Bearer ${call.apiKey}`;
      else if (keyRequired) throw missingKey(name);
      if (call.countTokens === true && count !== undefined) {
        return { url: count.url(call.customHost ?? baseUrl), method: 'POST', headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' }, body: count.body(call.body ?? {}), response: count.response(name, countError) };
      }
      const url = joinUrl(call.customHost ?? baseUrl, call.path);
      return bodyCall(call, url, headers, asksStreamUsage !== false && (asksStreamUsage === 'anyHost' || call.customHost === null));
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
