// The request log's and metrics' settings (runtime/telemetry/settings.ts): each number has the least
// value that means what it says, and a value below it is refused at start, never quietly raised.
import { expect, it } from 'vitest';
import { telemetrySettingsFromEnv } from '../../runtime/telemetry/settings.ts';

it('takes each whole-number setting at its least value, and refuses one below it by name', () => {
  const least = telemetrySettingsFromEnv({ GATEWAY_LOG_RETENTION_DAYS: '0', GATEWAY_LOG_QUEUE_MAX: '1', GATEWAY_LOG_FLUSH_MS: '10', GATEWAY_LOG_BODY_MAX_BYTES: '1', GATEWAY_LOG_SPILL_MAX_BYTES: '0' });
  expect(least.log).toMatchObject({ retentionDays: 0, queueMax: 1, flushMs: 10 });
  expect(least).toMatchObject({ logBodyMaxBytes: 1, logSpillMaxBytes: 0 });
  expect(telemetrySettingsFromEnv({}).logSpillMaxBytes).toBe(1024 ** 3);
  for (const [name, below] of [['GATEWAY_LOG_QUEUE_MAX', '0'], ['GATEWAY_LOG_FLUSH_MS', '9'], ['GATEWAY_LOG_BODY_MAX_BYTES', '0'], ['GATEWAY_LOG_RETENTION_DAYS', '-1'], ['GATEWAY_LOG_QUEUE_MAX', '1.5'], ['GATEWAY_LOG_SPILL_MAX_BYTES', '-1']] as const) {
    expect(() => telemetrySettingsFromEnv({ [name]: below }), name).toThrow(new RegExp(`^${name} must be an integer of at least \\d+, not "${below.replace('.', '\\.')}"$`));
  }
});

it('reads the on/off switches in their spellings, and refuses anything else by name', () => {
  expect(telemetrySettingsFromEnv({ GATEWAY_REQUEST_LOG: 'OFF', GATEWAY_METRICS: '0', GATEWAY_LOG_BODIES: 'true' })).toMatchObject({ requestLog: false, metrics: false, logBodies: true });
  expect(telemetrySettingsFromEnv({})).toMatchObject({ requestLog: true, metrics: true, logBodies: false });
  expect(() => telemetrySettingsFromEnv({ GATEWAY_METRICS: 'maybe' })).toThrow('GATEWAY_METRICS must be on or off, not "maybe"');
});
