// The model catalog is schema-validated data; the provider API table decides which routes forward.
import { EVERY_ROUTING_HEADER } from '../../runtime/pipeline/options.ts';
import { describe, expect, it } from 'vitest';
import { planConfig } from '../../compiler/config/plan.ts';
import type { LoadedRouter } from '../../runtime/inference/routers.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT_IN_CATALOG, ModelCatalog } from '../../runtime/telemetry/model-catalog.ts';
import { providerHasApi, routeHasApi, routeProviders } from '../../runtime/jobs/provider-apis.ts';
import type { StoredCredentials } from '../../runtime/providers/stored-credentials.ts';

function router(config: Record<string, unknown>): LoadedRouter {
  const plan = planConfig(config, 'test');
  return { configId: 'test', readsBody: plan.readsBody, plan, forwardedHeaders: [], checkHeaders: [], optionReaders: null, routingHeaders: EVERY_ROUTING_HEADER, adapterSetHeaders: new Set(), run: async () => { throw new Error('not routed'); } };
}

describe('model catalog', () => {
  it('loads the built-in catalog, which the schema accepts', () => {
    const catalog = ModelCatalog.load();
    expect(catalog.find('gpt-4o-mini')?.context_window).toBe(128000);
    expect(catalog.find('gpt-4o-2024-08-06')?.id).toBe('gpt-4o');
    expect(catalog.find('claude-3-5-haiku')?.id).toBe('claude-3-5-haiku-latest');
    expect(catalog.find('no-such-model')).toBeUndefined();
  });

  it('prices usage, cached input at its own price', () => {
    const catalog = new ModelCatalog({ models: [{ id: 'm', context_window: 10, pricing: { input_per_million: 2, cached_input_per_million: 1, output_per_million: 4 } }] });
    expect(catalog.cost('m', { inputTokens: 1_000_000, cachedInputTokens: 500_000, outputTokens: 250_000 })).toBeCloseTo(1 + 0.5 + 1);
    expect(catalog.cost('other', { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1 })).toBeNull();
  });

  it('prices cached audio input at its own price where the model has one, else at the cached price', () => {
    const catalog = new ModelCatalog({ models: [
      { id: 'apart', pricing: { input_per_million: 1, cached_input_per_million: 0.1, audio_input_per_million: 10, cached_audio_input_per_million: 0.5, output_per_million: 2 } },
      { id: 'one', pricing: { input_per_million: 1, cached_input_per_million: 0.1, audio_input_per_million: 10, output_per_million: 2 } },
    ] });
    // 100 input: 20 cached (of them 5 audio), 30 uncached audio, 50 uncached text.
    const usage = { inputTokens: 100, cachedInputTokens: 20, cachedAudioInputTokens: 5, audioInputTokens: 30, outputTokens: 0 };
    expect(catalog.cost('apart', usage)).toBeCloseTo((50 * 1 + 15 * 0.1 + 5 * 0.5 + 30 * 10) / 1e6, 12);
    expect(catalog.cost('one', usage)).toBeCloseTo((50 * 1 + 20 * 0.1 + 30 * 10) / 1e6, 12);
    // More cached audio than cached input (an odd answer) is capped at the cached input.
    expect(catalog.cost('apart', { ...usage, cachedAudioInputTokens: 99 })).toBeCloseTo((50 * 1 + 20 * 0.5 + 30 * 10) / 1e6, 12);
  });

  it('prices characters for a model billed by them, and leaves a model priced by tokens priced so when an answer counts both', () => {
    const catalog = new ModelCatalog({ models: [
      { id: 'chars', pricing: { input_per_million: 0, output_per_million: 0, input_per_million_characters: 0.025 } },
      { id: 'tokens', pricing: { input_per_million: 0.15, output_per_million: 0 } },
    ] });
    const embedded = { inputTokens: 30, cachedInputTokens: 0, outputTokens: 0, inputCharacters: 4_000_000 };
    expect(catalog.cost('chars', embedded)).toBeCloseTo(0.1, 12);
    expect(catalog.cost('tokens', embedded)).toBeCloseTo((30 * 0.15) / 1e6, 12);
    // An answer that counted tokens and no characters (strict vendor compliance, no metadata) would price a character-billed model at 0: not priced.
    expect(catalog.cost('chars', { inputTokens: 30, cachedInputTokens: 0, outputTokens: 0 })).toBeNull();
    // Characters alone (speech answered as audio) on a model without a character price: not priced.
    expect(catalog.cost('tokens', { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, inputCharacters: 12 })).toBeNull();
  });

  it('refuses a catalog that breaks its schema or names a model twice', () => {
    expect(() => new ModelCatalog({ models: [{ id: 'm', context_window: 0, pricing: { input_per_million: 1, output_per_million: 1 } }] })).toThrow(/\/models\/0\/context_window/);
    expect(() => new ModelCatalog({ models: [{ id: 'm', context_window: 5, pricing: { input_per_million: 1 } }] })).toThrow(/output_per_million/);
    expect(() => new ModelCatalog({ models: [
      { id: 'a', aliases: ['b'], context_window: 5, pricing: { input_per_million: 1, output_per_million: 1 } },
      { id: 'b', context_window: 5, pricing: { input_per_million: 1, output_per_million: 1 } },
    ] })).toThrow(/twice/);
  });

  it('says which setting named a catalog or pricing file it cannot read, parse or accept', () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-'));
    try {
      const missing = join(dir, 'missing.json');
      const broken = join(dir, 'broken.json');
      const invalid = join(dir, 'invalid.json');
      const extra = join(dir, 'extra.json');
      writeFileSync(broken, '{"models": [{"id": "m", "context_window": 5,}]}');
      writeFileSync(invalid, '{"models": [{"id": "m"}]}');
      writeFileSync(extra, JSON.stringify({ models: [{ id: 'gpt-4o-mini', context_window: 5, pricing: { input_per_million: 1, output_per_million: 2 } }] }));
      expect(() => ModelCatalog.load(missing)).toThrow(`GATEWAY_MODEL_CATALOG ${missing}: cannot read it (ENOENT)`);
      expect(() => ModelCatalog.loadWithOverlay(BUILT_IN_CATALOG, missing)).toThrow(`GATEWAY_PRICING_FILE ${missing}: cannot read it (ENOENT)`);
      expect(() => ModelCatalog.loadWithOverlay(BUILT_IN_CATALOG, broken)).toThrow(`GATEWAY_PRICING_FILE ${broken} is not valid JSON at character 45: expected a property name in double quotes, found '}' (no comma before a closing bracket)`);
      expect(() => ModelCatalog.loadWithOverlay(BUILT_IN_CATALOG, invalid)).toThrow(new RegExp(`^GATEWAY_PRICING_FILE ${invalid} is not valid at /models/0`));
      expect(ModelCatalog.loadWithOverlay(BUILT_IN_CATALOG, extra).cost('gpt-4o-mini', { inputTokens: 1_000_000, cachedInputTokens: 0, outputTokens: 1_000_000 })).toBe(3);
      // Written by an editor that puts a byte-order mark first: still the same JSON.
      writeFileSync(extra, `\ufeff${JSON.stringify({ models: [{ id: 'gpt-4o-mini', context_window: 5, pricing: { input_per_million: 1, output_per_million: 2 } }] })}`);
      expect(ModelCatalog.loadWithOverlay(BUILT_IN_CATALOG, extra).cost('gpt-4o-mini', { inputTokens: 1_000_000, cachedInputTokens: 0, outputTokens: 1_000_000 })).toBe(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('provider APIs', () => {
  const credentials: StoredCredentials = {
    virtualKey: (id) => (id === 'vk-vendor' ? { id: 'vk-vendor', provider: 'openai', apiKey: 'k', options: {}, unusable: null } : undefined),
    slug: (name) => (name === 'anth' ? { id: 'vk-anth', provider: 'anthropic', apiKey: 'k', options: {}, unusable: null } : undefined),
  };

  it('knows which providers have which APIs, aliases included', () => {
    expect(providerHasApi('openai', 'responses')).toBe(true);
    expect(providerHasApi('VENDOR', 'batches')).toBe(true);
    expect(providerHasApi('groq', 'fine_tuning')).toBe(false);
    expect(providerHasApi('anthropic', 'files')).toBe(false);
    expect(providerHasApi('constructor', 'files')).toBe(false);
  });

  it('forwards only when every target the route may pick has the API', () => {
    const both = router({ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'a' }, { provider: 'groq', api_key: 'b' }] });
    expect(routeHasApi(both, {}, null, 'batches')).toBe(true);
    expect(routeHasApi(both, {}, null, 'fine_tuning')).toBe(false);
    const mixed = router({ strategy: { mode: 'loadbalance' }, targets: [{ provider: 'openai', api_key: 'a' }, { provider: '@anth' }] });
    expect(routeProviders(mixed, {}, credentials)).toEqual(['vendor', 'anthropic']);
    expect(routeHasApi(mixed, {}, credentials, 'files')).toBe(false);
    expect(routeProviders(router({ virtual_key: 'vk-vendor' }), {}, credentials)).toEqual(['openai']);
    expect(routeProviders(router({ virtual_key: 'vk-unknown' }), {}, credentials)).toEqual([null]);
    // Leaves without a provider take the request's.
    const headerOnly = router({ retry: { attempts: 1 } });
    expect(routeHasApi(headerOnly, { 'x-gateway-provider': 'openai' }, null, 'responses')).toBe(true);
    expect(routeHasApi(headerOnly, { 'x-gateway-provider': 'ollama' }, null, 'responses')).toBe(false);
    expect(routeHasApi(headerOnly, { 'x-gateway-virtual-key': 'vk-vendor' }, credentials, 'files')).toBe(true);
    expect(routeHasApi(headerOnly, {}, null, 'files')).toBe(false);
  });
});
