// Inline configs compile once per distinct config (ARCHITECTURE §3): cached by exact header text and
// by canonical hash, bounded, and never cached when invalid.
import { fc, test as propTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { CircuitBreakers, MemoryBreakerStore } from '../../runtime/router/breaker.ts';
import { canonicalJson } from '../../runtime/core/canonical-json.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';
import { ConfigResolver } from '../../runtime/inference/config-resolver.ts';
import { LruMap } from '../../runtime/inference/lru.ts';
import { defaultProviders } from '../../runtime/providers/registry.ts';
import { InferenceTransport } from '../../runtime/inference/transport.ts';
import { GatewayError } from '../../runtime/core/errors.ts';

function resolver(cacheSize = 100): ConfigResolver {
  return new ConfigResolver({
    transport: new InferenceTransport(defaultProviders()),
    breakers: new CircuitBreakers(new MemoryBreakerStore(), Date.now),
    settings: { retryBaseMs: 1, retryMaxMs: 1, inlineConfigCacheSize: cacheSize },
  });
}

const config = { strategy: { mode: 'fallback' }, retry: { attempts: 1 }, targets: [{ provider: 'vendor', api_key: 'a', on_status_codes: [503] }, { provider: 'vendor', api_key: 'b' }] };

describe('inline configs', () => {
  it('return the same router for the same text, and for the same config spelt differently', () => {
    const r = resolver();
    const first = r.fromConfigHeader(JSON.stringify(config));
    expect(r.fromConfigHeader(JSON.stringify(config))).toBe(first);
    const reordered = JSON.stringify({ targets: config.targets.map((t) => Object.fromEntries(Object.entries(t).reverse())), retry: config.retry, strategy: config.strategy });
    expect(r.fromConfigHeader(`  ${reordered}\n`)).toBe(first);
    expect(first.configId).toMatch(/^inline:[0-9a-f]{24}$/);
  });

  it('keep at most 4 KB of config text per entry of the count: large configs evict the oldest sooner', () => {
    // A compiled config takes ~50 times its text: a thousand 32 KB configs held ~1.5 GB.
    const big = (i: number) => JSON.stringify({ strategy: { mode: 'loadbalance' }, targets: Array.from({ length: 150 }, (_, t) => ({ provider: 'vendor', api_key: `k${i}-${t}` })) });
    expect(big(0).length).toBeGreaterThan(5000);
    const r = resolver(10);
    const first = r.fromConfigHeader(big(0));
    // 10 × 4 KB = 40 KB of text: six of these (~6 KB each) fit; the first is compiled again after nine.
    for (let i = 1; i < 10; i++) r.fromConfigHeader(big(i));
    expect(r.fromConfigHeader(big(0))).not.toBe(first);
    // Small configs keep the count bound as before: the first is still there after nine others.
    const small = (i: number) => JSON.stringify({ provider: 'vendor', api_key: `s${i}` });
    const s = resolver(10);
    const one = s.fromConfigHeader(small(0));
    for (let i = 1; i < 10; i++) s.fromConfigHeader(small(i));
    expect(s.fromConfigHeader(small(0))).toBe(one);
  });

  it('refuse a field that would have no effect (a compile warning for a file: nothing reviews an inline config)', () => {
    const r = resolver();
    let error: unknown;
    try {
      r.fromConfigHeader(JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ provider: 'vendor', api_key: 'a', weight: 2 }, { provider: 'vendor', api_key: 'b' }] }));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('invalid_config');
    expect((error as GatewayError).details?.errors).toEqual([expect.objectContaining({ code: 'CFG_FIELD_WITHOUT_EFFECT', pointer: '/targets/0/weight' })]);
  });

  it('answer 400 invalid_config with every compile error, and compile an invalid config again next time', () => {
    const r = resolver();
    const bad = '{"strategy":{"mode":"fallback"},"targets":[{"providr":"vendor"}]}';
    for (let i = 0; i < 2; i++) {
      let error: unknown;
      try {
        r.fromConfigHeader(bad);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).toBody().error).toMatchObject({ code: 'invalid_config', param: 'x-gateway-config', errors: expect.arrayContaining([expect.objectContaining({ code: 'CFG_UNKNOWN_KEY' })]) });
    }
  });

  it('tell a saved config ID from inline JSON, and name an unknown ID', () => {
    expect(() => resolver().fromConfigHeader('prod-chat')).toThrow(/No saved config has the ID "prod-chat"/);
    expect(() => resolver().fromConfigHeader('{not json')).toThrow(GatewayError);
    // Located, and never quoting the header's text: an inline config holds credentials.
    expect(() => resolver().fromConfigHeader('{"provider":"vendor","api_key":sk-secret-123}')).toThrow(
      new GatewayError('invalid_config', "The x-gateway-config header is neither a saved config ID nor valid JSON at character 32: unexpected 's' where a value should be (strings go in double quotes).", 'x-gateway-config'),
    );
  });

  it('stay within the cache bound: the least recently used config is compiled again', () => {
    const r = resolver(2);
    const text = (n: number) => JSON.stringify({ provider: 'vendor', api_key: `k${n}` });
    const one = r.fromConfigHeader(text(1));
    r.fromConfigHeader(text(2));
    expect(r.fromConfigHeader(text(1))).toBe(one);
    r.fromConfigHeader(text(3));
    r.fromConfigHeader(text(4));
    expect(r.fromConfigHeader(text(1))).not.toBe(one);
  });
});

describe('canonicalJson', () => {
  propTest.prop([fc.jsonValue()], { numRuns: 200 })('is the same for any key order and parses back to an equal value', (value) => {
    const shuffle = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(shuffle);
      if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, shuffle(x)]));
      return v;
    };
    expect(canonicalJson(shuffle(value))).toBe(canonicalJson(value));
    // parseJson, not JSON.parse: V8 can misread an escaped key after an earlier parse (compiler/config/json-parse.ts).
    expect(parseJson(canonicalJson(value))).toEqual(parseJson(JSON.stringify(value)));
  });
});

describe('LruMap', () => {
  // Reference: a recency list of [key, stamp]; a hit moves its key to the back only once it is more
  // than (capacity - 1)/2 stamps behind the clock; past the capacity the oldest hundredth goes (at
  // least one).
  const capacities = fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 100, max: 250 }));
  propTest.prop([capacities, fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 300 })), { maxLength: 700 })], { numRuns: 200 })(
    'behaves like a reference recency list and never exceeds its capacity',
    (capacity, operations) => {
      const lru = new LruMap<number, number>(capacity);
      const window = Math.floor((capacity - 1) / 2);
      let clock = 0;
      let model: Array<[number, number]> = [];
      for (const [isSet, key] of operations) {
        const found = model.find(([k]) => k === key);
        if (isSet) {
          lru.set(key, key * 10);
          model = [...model.filter(([k]) => k !== key), [key, ++clock] as [number, number]];
          if (model.length > capacity) model = model.slice(-(capacity - Math.floor(capacity / 100)));
        } else {
          expect(lru.get(key)).toBe(found !== undefined ? key * 10 : undefined);
          if (found !== undefined && clock - found[1] > window) model = [...model.filter(([k]) => k !== key), [key, ++clock]];
        }
        expect(lru.size).toBe(model.length);
      }
    },
  );

  propTest.prop([fc.integer({ min: 2, max: 50 }), fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 400 })], { numRuns: 100 })(
    'never evicts a key read at least once per capacity/2 insertions',
    (capacity, inserts) => {
      const lru = new LruMap<number, string>(capacity);
      lru.set(-1, 'hot');
      const every = Math.max(1, Math.floor(capacity / 2));
      inserts.forEach((key, i) => {
        lru.set(key, 'cold');
        if ((i + 1) % every === 0) expect(lru.get(-1)).toBe('hot');
      });
      expect(lru.get(-1)).toBe('hot');
    },
  );
});
