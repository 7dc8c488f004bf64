// The request log writes records of requests no key vouched for at a bounded rate (runtime/telemetry/
// keyless-records.ts), wired as serve wires it: past the burst, 401s are dropped and counted, while
// every request a key made is still written.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setupRequestLog, type WiredRequestLog } from '../../runtime/api/logs/index.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { type RunningGateway, startGateway } from '../../runtime/server/start.ts';
import { KeylessRecordBudget } from '../../runtime/telemetry/keyless-records.ts';
import { telemetrySettingsFromEnv } from '../../runtime/telemetry/settings.ts';

const ADMIN = 'gw_keyless-records-admin-0123456789abcdefgh';
let gateway: RunningGateway;
let wired: WiredRequestLog | null = null;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gateway-keyless-'));
  gateway = await startGateway({
    port: 0, dataDir: dir, seedApiKey: ADMIN, logger: silentLogger,
    // Five at once, then one a minute: the test's second of requests meets the limit at once.
    setup: async (setup) => void (wired = setupRequestLog(setup, telemetrySettingsFromEnv({}), new KeylessRecordBudget(1 / 60, 5))),
  });
});
afterAll(async () => {
  await gateway?.close();
  await rm(dir, { recursive: true, force: true });
});

it('writes the burst of keyless records and drops the rest, counted, while a key\'s requests are all written', async () => {
  for (let i = 0; i < 20; i++) expect((await fetch(`${gateway.url}/v1/models`, { headers: { 'x-gateway-api-key': 'gw_wrong' } })).status).toBe(401);
  for (let i = 0; i < 20; i++) expect((await fetch(`${gateway.url}/no-such-path-${i}`)).status).toBe(404);
  for (let i = 0; i < 20; i++) await fetch(`${gateway.url}/v1/logs?limit=1`, { headers: { 'x-gateway-api-key': ADMIN } });
  await wired!.log.flush();
  expect(wired!.keyless.dropped).toBe(35);
  const page = (await (await fetch(`${gateway.url}/v1/logs?limit=100`, { headers: { 'x-gateway-api-key': ADMIN } })).json()) as { data: Array<{ status: number; api_key_id: string | null }> };
  expect(page.data.filter((r) => r.api_key_id === null).map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
  expect(page.data.filter((r) => r.api_key_id !== null)).toHaveLength(20);
});
