// Providers that speak the vendor's wire format at their own base URL. A `custom_host` with any of
// these names (or with `vendor`) reaches a self-hosted server of the same kind.
import type { EndpointKind, ProviderAdapter } from '../types.ts';
import { type ChatTokenCount, vendorShapedAdapter } from '../shared/vendor-shaped.ts';
import { VLLM_TOKENIZE } from './vllm-tokenize.ts';
import { PROVIDERS } from '../../../compiler/config/providers.ts';

export interface CompatibleProvider {
  name: string;
  baseUrl: string;
  endpoints: readonly EndpointKind[];
  /** Local servers accept requests without a key. */
  keyRequired: boolean;
  /** Takes `stream_options.include_usage`, at its base URL or a custom_host (the same kind of server there). */
  asksStreamUsage: boolean;
}

/** Base URLs and endpoints as each provider documents its OpenAI-compatible API (schema/providers.json). */
export const COMPATIBLE_PROVIDERS: readonly CompatibleProvider[] = PROVIDERS.filter((p) => p.family === 'compatible').map((p) => ({
  name: p.name,
  baseUrl: p.base_url!,
  endpoints: p.endpoints,
  keyRequired: p.key_required !== false,
  asksStreamUsage: p.asks_stream_usage === true,
}));

/** The servers among them that count a chat's tokens themselves, and how. */
const CHAT_TOKEN_COUNTS: Readonly<Record<string, ChatTokenCount>> = { vllm: VLLM_TOKENIZE };

export function compatibleAdapters(): ProviderAdapter[] {
  return COMPATIBLE_PROVIDERS.map((p) => vendorShapedAdapter({
    name: p.name,
    baseUrl: p.baseUrl,
    endpoints: new Set(p.endpoints),
    keyRequired: p.keyRequired,
    asksStreamUsage: p.asksStreamUsage ? 'anyHost' : false,
    ...(Object.hasOwn(CHAT_TOKEN_COUNTS, p.name) ? { chatTokenCount: CHAT_TOKEN_COUNTS[p.name] } : {}),
  }));
}
