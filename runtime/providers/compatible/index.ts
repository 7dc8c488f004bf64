// Providers that speak the vendor's wire format at their own base URL. A `custom_host` with any of
// these names (or with `vendor`) reaches a self-hosted server of the same kind.
import type { EndpointKind, ProviderAdapter } from '../types.ts';
import { vendorShapedAdapter } from '../shared/vendor-shaped.ts';

export interface CompatibleProvider {
  name: string;
  baseUrl: string;
  endpoints: readonly EndpointKind[];
  /** Local servers accept requests without a key. */
  keyRequired: boolean;
}

/** Base URLs and endpoints as each provider documents its OpenAI-compatible API. */
export const COMPATIBLE_PROVIDERS: readonly CompatibleProvider[] = [
  { name: 'groq', baseUrl: 'https://api.groq.com/openai/v1', endpoints: ['chat', 'audio', 'models'], keyRequired: true },
  { name: 'together', baseUrl: 'https://api.together.xyz/v1', endpoints: ['chat', 'completions', 'embeddings', 'images', 'audio', 'models'], keyRequired: true },
  { name: 'mistral', baseUrl: 'https://api.mistral.ai/v1', endpoints: ['chat', 'embeddings', 'models'], keyRequired: true },
  { name: 'deepseek', baseUrl: 'https://api.deepseek.com/v1', endpoints: ['chat', 'models'], keyRequired: true },
  { name: 'fireworks', baseUrl: 'https://api.fireworks.ai/inference/v1', endpoints: ['chat', 'completions', 'embeddings', 'models'], keyRequired: true },
  { name: 'openrouter', baseUrl: 'https://openrouter.ai/api/v1', endpoints: ['chat', 'completions', 'models'], keyRequired: true },
  { name: 'perplexity', baseUrl: 'https://api.perplexity.ai', endpoints: ['chat'], keyRequired: true },
  { name: 'xai', baseUrl: 'https://api.x.ai/v1', endpoints: ['chat', 'completions', 'images', 'models'], keyRequired: true },
  { name: 'cerebras', baseUrl: 'https://api.cerebras.ai/v1', endpoints: ['chat', 'completions', 'models'], keyRequired: true },
  { name: 'deepinfra', baseUrl: 'https://api.deepinfra.com/v1/openai', endpoints: ['chat', 'completions', 'embeddings', 'models'], keyRequired: true },
  { name: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', endpoints: ['chat', 'completions', 'embeddings', 'models'], keyRequired: false },
  { name: 'lmstudio', baseUrl: 'http://127.0.0.1:1234/v1', endpoints: ['chat', 'completions', 'embeddings', 'models'], keyRequired: false },
  { name: 'vllm', baseUrl: 'http://127.0.0.1:8000/v1', endpoints: ['chat', 'completions', 'embeddings', 'audio', 'models'], keyRequired: false },
];

export function compatibleAdapters(): ProviderAdapter[] {
  return COMPATIBLE_PROVIDERS.map((p) => vendorShapedAdapter({ name: p.name, baseUrl: p.baseUrl, endpoints: new Set(p.endpoints), keyRequired: p.keyRequired }));
}
