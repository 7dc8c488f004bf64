// CFG_PROVIDER_LACKS_ENDPOINT: a target that a url.pathname branch selects is warned about exactly for
// the endpoints its provider lacks (the reference reads schema/providers.json and schema/api.json
// directly); a route that no condition narrows by path never warns.
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import apiManifest from '../../schema/api.json' with { type: 'json' };
import { checkConfig } from '../../compiler/config/index.ts';
import { checkProviderEndpoints } from '../../compiler/config/endpoint-check.ts';
import { PROVIDERS } from '../../compiler/config/providers.ts';

const TYPED = apiManifest.endpoints.filter((e) => e.handler.startsWith('inference.') && !e.path.includes('{')).map((e) => ({ path: e.path, endpoint: e.handler.slice('inference.'.length) }));
const NAMES = PROVIDERS.map((p) => p.name);
const offers = (provider: string, endpoint: string): boolean => (PROVIDERS.find((p) => p.name === provider)!.endpoints as string[]).includes(endpoint);

function warningsFor(config: Record<string, unknown>) {
  const checked = checkConfig(config, 'compiled');
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return checkProviderEndpoints(checked.plan.root);
}

const conditional = (conditions: unknown[], targets: unknown[], defaultName = 'rest') => ({
  strategy: { mode: 'conditional', conditions, default: defaultName },
  targets,
});

describe('provider endpoints', () => {
  test.prop([fc.constantFrom(...TYPED), fc.constantFrom(...NAMES)], { numRuns: 200 })('a path-selected target warns iff its provider lacks that endpoint', (typed, provider) => {
    const config = conditional(
      [{ query: { 'url.pathname': typed.path }, then: 'picked' }],
      [{ name: 'picked', provider, api_key: 'k' }, { name: 'rest', provider: 'vendor', api_key: 'k' }],
    );
    const warnings = warningsFor(config);
    expect(warnings).toEqual(offers(provider, typed.endpoint) ? [] : [{ pointer: '/targets/0/provider', provider, missing: [typed.endpoint] }]);
  });

  test.prop([fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 5 }), fc.constantFrom('fallback', 'loadbalance')], { numRuns: 100 })('a route no condition narrows by path never warns', (providers, mode) => {
    expect(warningsFor({ strategy: { mode }, targets: providers.map((provider) => ({ provider, api_key: 'k' })) })).toEqual([]);
    const byMetadata = conditional([{ query: { 'metadata.tier': 'pro' }, then: 'a' }], [{ name: 'a', provider: providers[0], api_key: 'k' }, { name: 'rest', provider: 'cloudc', api_key: 'k' }]);
    expect(warningsFor(byMetadata)).toEqual([]);
  });

  it('reads $in, $regex and $and the way the router does; an earlier sure match shadows later conditions', () => {
    const targets = [
      { name: 'a', strategy: { mode: 'fallback' }, targets: [{ provider: 'vendor', api_key: 'k' }, { provider: 'perplexity', api_key: 'k' }] },
      { name: 'b', provider: 'cloudb', api_key: 'k' },
      { name: 'rest', provider: 'anthropic', api_key: 'k' },
    ];
    const inList = warningsFor(conditional([{ query: { 'url.pathname': { $in: ['/v1/chat/completions', '/v1/completions'] } }, then: 'a' }], targets));
    expect(inList).toEqual([{ pointer: '/targets/0/targets/1/provider', provider: 'perplexity', missing: ['completions'] }]);
    const regex = warningsFor(conditional([{ query: { $and: [{ 'url.pathname': { $regex: '/embeddings$' } }, { 'metadata.team': 'x' }] }, then: 'b' }], targets));
    expect(regex).toEqual([]); // cloudb embeds
    const shadowed = warningsFor(conditional([
      { query: { 'url.pathname': '/v1/embeddings' }, then: 'b' },
      { query: { 'url.pathname': { $regex: '^/v1/(embeddings|chat)' } }, then: 'a' },
    ], targets));
    expect(shadowed).toEqual([]); // embeddings never reach "a": the first condition always takes them
  });

  it('warns about a target reached only by exclusion when its provider offers none of what reaches it', () => {
    const onlyImages = conditional([{ query: { 'url.pathname': { $nin: ['/v1/images/generations', '/v1/images/edits', '/v1/images/variations'] } }, then: 'a' }], [
      { name: 'a', provider: 'vendor', api_key: 'k' },
      { name: 'rest', provider: 'cloudc', api_key: 'k' },
    ]);
    expect(warningsFor(onlyImages)).toEqual([{ pointer: '/targets/1/provider', provider: 'cloudc', missing: ['images'] }]);
    const mostly = conditional([{ query: { 'url.pathname': '/v1/embeddings' }, then: 'a' }], [
      { name: 'a', provider: 'vendor', api_key: 'k' },
      { name: 'rest', provider: 'anthropic', api_key: 'k' },
    ]);
    expect(warningsFor(mostly)).toEqual([]); // the default gets chat and models, which anthropic has
  });

  it('skips targets whose provider is known only per request (a stored slug, a virtual key)', () => {
    for (const picked of [{ provider: '@team-anthropic', api_key: 'k' }, { virtual_key: 'team-key' }]) {
      const config = conditional([{ query: { 'url.pathname': '/v1/embeddings' }, then: 'a' }], [{ name: 'a', ...picked }, { name: 'rest', provider: 'vendor', api_key: 'k' }]);
      expect(warningsFor(config)).toEqual([]);
    }
  });
});
