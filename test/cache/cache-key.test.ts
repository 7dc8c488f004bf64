// Properties of the response-cache key: the body's key order never changes it; any change of a sent
// parameter, the target, the caller's workspace, the routing and provider-option headers, the
// metadata or the namespace does; a namespace replaces the metadata.
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { cacheKey, scopeOfNode } from '../../runtime/pipeline/cache/cache-key.ts';
import type { Exchange } from '../../runtime/pipeline/exchange.ts';

interface Shape {
  params: Record<string, unknown>;
  workspace: string;
  metadata: Record<string, string>;
  namespace: string | null;
  provider: string | null;
  providerOptions: Record<string, string>;
  endpoint: 'chat' | 'completions' | 'embeddings';
}

function exchange(shape: Shape): Exchange {
  return {
    params: shape.params,
    endpoint: shape.endpoint,
    caller: { keyId: 'k', workspaceId: shape.workspace, organisationId: 'o' },
    options: { metadata: shape.metadata, cacheNamespace: shape.namespace, provider: shape.provider, customHost: null, virtualKey: null, providerOptions: shape.providerOptions },
  } as unknown as Exchange;
}

/** The same value with every object's keys in another order. */
function shuffled(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((v, i) => shuffled(v, seed + i));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const order = entries.map((_, i) => i).sort((a, b) => ((a * 7919 + seed) % 13) - ((b * 7919 + seed) % 13));
  return Object.fromEntries(order.map((i) => [entries[i][0], shuffled(entries[i][1], seed + i)]));
}

const params = fc.record({
  model: fc.constantFrom('gpt-4o', 'gpt-4o-mini'),
  messages: fc.array(fc.record({ role: fc.constantFrom('user', 'system'), content: fc.string({ maxLength: 20 }) }), { minLength: 1, maxLength: 3 }),
  temperature: fc.option(fc.double({ min: 0, max: 2, noNaN: true }), { nil: undefined }),
  extra: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
}).map(({ temperature, ...rest }) => (temperature === undefined ? rest : { ...rest, temperature }));

const shapes = fc.record({
  params,
  workspace: fc.constantFrom('w1', 'w2'),
  metadata: fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  namespace: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: null }),
  provider: fc.option(fc.constantFrom('openai', 'anthropic'), { nil: null }),
  providerOptions: fc.dictionary(fc.constantFrom('clouda_deployment_id', 'cloudb_region'), fc.constantFrom('a', 'b'), { maxKeys: 2 }),
  endpoint: fc.constantFrom('chat' as const, 'completions' as const, 'embeddings' as const),
});

const SCOPE = 'scope-a';

describe('response-cache key', () => {
  test.prop([shapes, fc.nat()], { numRuns: 200 })('never changes with the order of keys in the body or the metadata', (shape, seed) => {
    const reordered = { ...shape, params: shuffled(shape.params, seed) as Record<string, unknown>, metadata: shuffled(shape.metadata, seed + 1) as Record<string, string> };
    expect(cacheKey(exchange(reordered), SCOPE)).toBe(cacheKey(exchange(shape), SCOPE));
  });

  test.prop([shapes, fc.jsonValue({ maxDepth: 1 })], { numRuns: 200 })('changes with any sent parameter', (shape, value) => {
    const changed = { ...shape, params: { ...shape.params, extra_param: value } };
    expect(cacheKey(exchange(changed), SCOPE)).not.toBe(cacheKey(exchange(shape), SCOPE));
    const other = { ...shape, params: { ...shape.params, model: shape.params.model === 'gpt-4o' ? 'gpt-4o-mini' : 'gpt-4o' } };
    expect(cacheKey(exchange(other), SCOPE)).not.toBe(cacheKey(exchange(shape), SCOPE));
  });

  test.prop([shapes], { numRuns: 100 })('changes with the target, the workspace, the endpoint and the routing headers', (shape) => {
    const key = cacheKey(exchange(shape), SCOPE);
    expect(cacheKey(exchange(shape), 'scope-b')).not.toBe(key);
    expect(cacheKey(exchange({ ...shape, workspace: shape.workspace + 'x' }), SCOPE)).not.toBe(key);
    expect(cacheKey(exchange({ ...shape, endpoint: shape.endpoint === 'chat' ? 'completions' : 'chat' }), SCOPE)).not.toBe(key);
    expect(cacheKey(exchange({ ...shape, provider: shape.provider === null ? 'openai' : null }), SCOPE)).not.toBe(key);
    // A provider-option header picks what the provider runs (a deployment, a region).
    const deployment = shape.providerOptions.clouda_deployment_id === 'a' ? 'b' : 'a';
    expect(cacheKey(exchange({ ...shape, providerOptions: { ...shape.providerOptions, clouda_deployment_id: deployment } }), SCOPE)).not.toBe(key);
  });

  test.prop([shapes, fc.string({ minLength: 1, maxLength: 5 })], { numRuns: 100 })('changes with the metadata, unless a namespace is given; then with the namespace only', (shape, value) => {
    const retagged = { ...shape, metadata: { ...shape.metadata, ['k' + value]: value + '!' } };
    if (shape.namespace === null) expect(cacheKey(exchange(retagged), SCOPE)).not.toBe(cacheKey(exchange(shape), SCOPE));
    else {
      expect(cacheKey(exchange(retagged), SCOPE)).toBe(cacheKey(exchange(shape), SCOPE));
      expect(cacheKey(exchange({ ...shape, namespace: shape.namespace + value }), SCOPE)).not.toBe(cacheKey(exchange(shape), SCOPE));
    }
  });

  test.prop([fc.jsonValue({ maxDepth: 2 }), fc.jsonValue({ maxDepth: 2 })], { numRuns: 100 })('a scope names the whole plan node', (a, b) => {
    const node = (override: unknown) => ({ kind: 'leaf', path: 'config', overrideParams: { x: override } }) as never;
    expect(scopeOfNode('c', node(a)) === scopeOfNode('c', node(b))).toBe(JSON.stringify(a) === JSON.stringify(b));
  });
});
