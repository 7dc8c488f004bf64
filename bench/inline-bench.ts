// What an inline config (x-gateway-config: {…}) costs the gateway, measured on the resolver that
// `gateway serve` builds (setupInference), in this process:
//   first sight   parse + canonical hash + check + plan + emit + new Function, per distinct config;
//   respelt       the same config with its keys in another order: parse + canonical hash, then a hit;
//   cached        the exact header text seen before: one LRU lookup. Each lookup gets a fresh string
//                 with the same text, as a request would, so V8 cannot reuse a cached string hash.
//                 Measured twice: with the cache at its default size (1000) and full, and with that
//                 one config alone in it.
import type { ConfigResolver } from '../runtime/inference/config-resolver.ts';
import { setupInference } from '../runtime/inference/index.ts';
import { type InferenceSettings, inferenceSettingsFromEnv } from '../runtime/inference/settings.ts';
import { silentLogger } from '../runtime/core/log.ts';
import type { GatewaySetup } from '../runtime/server/start.ts';
import { percentile } from './load.ts';
import { singleConfig } from './scenarios.ts';

export interface InlineResult {
  firstSightMicrosP50: number;
  firstSightMicrosP99: number;
  /** A four-target fallback-of-loadbalance config. */
  firstSightLargeMicrosP50: number;
  respeltMicrosP50: number;
  /** With the default-size cache full of other configs. */
  cachedMicros: number;
  /** With only this config cached. */
  cachedAloneMicros: number;
  cacheEntries: number;
  /** Length of the cached header text. */
  headerBytes: number;
}

export async function inlineBench(mock: string, distinct = 500, lookups = 200_000): Promise<InlineResult> {
  const settings = inferenceSettingsFromEnv({});
  const resolver = await resolverAsServed(settings);
  const single = (i: number) => JSON.stringify({ ...singleConfig(mock), api_key: `sk-inline-${i}` });
  const large = (i: number) => JSON.stringify({
    strategy: { mode: 'fallback' },
    retry: { attempts: 2 },
    targets: [
      { strategy: { mode: 'loadbalance' }, targets: [singleConfig(mock), { ...singleConfig(mock), api_key: `sk-lb-${i}`, weight: 2 }] },
      { ...singleConfig(mock), api_key: `sk-large-${i}`, override_params: { model: 'gpt-4o-mini' } },
      { ...singleConfig(mock), custom_host: `${mock}/other/v1`, request_timeout: 30_000 },
    ],
  });
  // Warm the compiler's code paths first, so first sight measures work, not V8's first compilation.
  for (let i = 0; i < 50; i++) resolver.fromConfigHeader(single(-1 - i));
  const firstSight = timeEach(distinct, (i) => resolver.fromConfigHeader(single(i)));
  const firstSightLarge = timeEach(distinct, (i) => resolver.fromConfigHeader(large(i)));
  const respelt = timeEach(distinct, (i) => {
    const { custom_host, api_key, provider } = singleConfig(mock) as Record<string, string>;
    resolver.fromConfigHeader(JSON.stringify({ custom_host, api_key: `sk-inline-${i}`, provider }));
  });
  // Fill the cache to its size with further configs, then time lookups of one that is in it.
  for (let i = distinct; i < distinct + settings.inlineConfigCacheSize; i++) resolver.fromConfigHeader(single(i));
  const cachedMicros = timeLookups(resolver, single(distinct + settings.inlineConfigCacheSize - 1), lookups);
  const alone = await resolverAsServed(settings);
  const cachedAloneMicros = timeLookups(alone, single(0), lookups);

  return {
    firstSightMicrosP50: percentile(firstSight, 50),
    firstSightMicrosP99: percentile(firstSight, 99),
    firstSightLargeMicrosP50: percentile(firstSightLarge, 50),
    respeltMicrosP50: percentile(respelt, 50),
    cachedMicros,
    cachedAloneMicros,
    cacheEntries: settings.inlineConfigCacheSize,
    headerBytes: Buffer.byteLength(single(0)),
  };
}

/** Mean µs of `fromConfigHeader(text)` over fresh copies of `text`, after a warm-up. */
function timeLookups(resolver: ConfigResolver, text: string, lookups: number): number {
  const bytes = Buffer.from(text, 'latin1');
  const copies = Array.from({ length: 1000 }, () => bytes.toString('latin1'));
  for (let i = 0; i < 20_000; i++) resolver.fromConfigHeader(copies[i % copies.length]);
  const fresh = Array.from({ length: lookups }, () => bytes.toString('latin1'));
  const started = process.hrtime.bigint();
  for (let i = 0; i < lookups; i++) resolver.fromConfigHeader(fresh[i]);
  return Number(process.hrtime.bigint() - started) / 1000 / lookups;
}

/** The resolver exactly as `gateway serve` wires it, without a server around it. */
async function resolverAsServed(settings: InferenceSettings): Promise<ConfigResolver> {
  const setup = {
    gateway: { registerHandler() {} },
    logger: silentLogger,
    configsDir: null,
    dataDir: '',
  } as unknown as GatewaySetup;
  return setupInference(setup, { settings });
}

/** Runs fn(i) for i < count and returns the sorted µs each call took. */
function timeEach(count: number, fn: (i: number) => void): number[] {
  const micros: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = process.hrtime.bigint();
    fn(i);
    micros.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return micros.sort((a, b) => a - b);
}
