// schema/providers.json is the one list of providers: it fits its schema, and the runtime registry
// knows exactly its names and aliases (so the compiler's CFG_UNKNOWN_PROVIDER and the runtime agree).
import { describe, expect, it } from 'vitest';
import { validateProviderManifest } from '../../generated/validators.js';
import manifest from '../../schema/providers.json' with { type: 'json' };
import { PROVIDER_NAMES } from '../../compiler/config/providers.ts';
import { checkConfig } from '../../compiler/config/index.ts';
import { defaultProviders } from '../../runtime/providers/registry.ts';

describe('the provider manifest', () => {
  it('fits schema/meta/provider-manifest.json', () => {
    expect(validateProviderManifest(manifest), JSON.stringify(validateProviderManifest.errors)).toBe(true);
  });

  it('names exactly the providers the runtime registry serves', () => {
    expect(defaultProviders().names()).toEqual([...PROVIDER_NAMES].sort());
  });

  it('is what the compiler checks provider names against, any case, with slugs left to the request', () => {
    for (const name of PROVIDER_NAMES) expect(checkConfig({ provider: name.toUpperCase(), api_key: 'k' }).ok, name).toBe(true);
    expect(checkConfig({ provider: '@any-slug', api_key: 'k' }).ok).toBe(true);
    const typo = checkConfig({ provider: 'opnai', api_key: 'k' });
    expect(typo.ok ? [] : typo.errors).toEqual([expect.objectContaining({ code: 'CFG_UNKNOWN_PROVIDER', pointer: '/provider', hint: 'did you mean "openai"?' })]);
  });
});
