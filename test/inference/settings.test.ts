// The data plane's settings (runtime/inference/settings.ts): retry times may be fractional
// milliseconds; the inline-config cache holds a whole number of configs, at least one.
import { expect, it } from 'vitest';
import { inferenceSettingsFromEnv } from '../../runtime/inference/settings.ts';

it('reads the defaults, takes fractional retry times, and refuses an inline cache that is not a whole number of at least 1', () => {
  expect(inferenceSettingsFromEnv({})).toEqual({ retryBaseMs: 1000, retryMaxMs: 30_000, inlineConfigCacheSize: 1000 });
  expect(inferenceSettingsFromEnv({ GATEWAY_RETRY_BASE_MS: '0.5', GATEWAY_INLINE_CONFIG_CACHE: '1' })).toMatchObject({ retryBaseMs: 0.5, inlineConfigCacheSize: 1 });
  for (const bad of ['0', '2.5', 'many']) {
    expect(() => inferenceSettingsFromEnv({ GATEWAY_INLINE_CONFIG_CACHE: bad })).toThrow(`GATEWAY_INLINE_CONFIG_CACHE must be an integer of at least 1, not "${bad}"`);
  }
  expect(() => inferenceSettingsFromEnv({ GATEWAY_RETRY_MAX_MS: '-1' })).toThrow('GATEWAY_RETRY_MAX_MS must be a non-negative number, not "-1"');
});
