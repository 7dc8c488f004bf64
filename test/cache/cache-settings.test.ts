// The lifetime bounds of cached answers: a config's max_age (schema/config.json) and the server's
// default (GATEWAY_CACHE_DEFAULT_MAX_AGE) share one maximum, whose milliseconds stay exact for Redis.
import { expect, it } from 'vitest';
import config from '../../schema/config.json' with { type: 'json' };
import { cacheSettingsFromEnv, MAX_CACHE_AGE_SECONDS } from '../../runtime/pipeline/cache/cache-settings.ts';
import { checkConfig } from '../../compiler/config/index.ts';

it('holds a config\'s max_age and the server default to one maximum', () => {
  const cache = (config as unknown as { properties: { cache: { properties: { max_age: { maximum: number } } } } }).properties.cache;
  expect(cache.properties.max_age.maximum).toBe(MAX_CACHE_AGE_SECONDS);
  expect(Number.isSafeInteger(MAX_CACHE_AGE_SECONDS * 1000)).toBe(true);
  expect(cacheSettingsFromEnv({ GATEWAY_CACHE_DEFAULT_MAX_AGE: String(MAX_CACHE_AGE_SECONDS) }).defaultMaxAgeMs).toBe(MAX_CACHE_AGE_SECONDS * 1000);
  expect(() => cacheSettingsFromEnv({ GATEWAY_CACHE_DEFAULT_MAX_AGE: String(MAX_CACHE_AGE_SECONDS + 1) })).toThrow(/at most 2147483647/);
  const over = checkConfig({ virtual_key: 'v', cache: { mode: 'simple', max_age: MAX_CACHE_AGE_SECONDS + 1 } });
  expect(over.ok ? [] : over.errors.map((e) => `${e.code} ${e.pointer}`)).toEqual(['CFG_OUT_OF_RANGE /cache/max_age']);
});
