// GATEWAY_RESPONSE_STORAGE_MAX_BYTES through the HTTP API: while an organisation's stored responses
// fill the limit, a response to store is 400 response_storage_full before the provider is asked;
// store: false is still answered, and a delete makes room. The count itself is checked on both
// backends in test/jobs/store.conformance.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_JOB_SETTINGS, jobSettingsFromEnv } from '../../runtime/jobs/settings.ts';
import { type JobsGateway, MESSAGES_MOCK_KEY, startJobsGateway } from './harness.ts';

// Less than one emulated response takes (its body alone is ~1 KB), so one response fills it.
const LIMIT = 600;
let gw: JobsGateway;

beforeAll(async () => {
  gw = await startJobsGateway('sqlite', { settings: { responseStorageMaxBytes: LIMIT } });
});
afterAll(async () => {
  await gw?.close();
});

const create = (body: Record<string, unknown>) =>
  gw.call('POST', '/v1/responses', {
    body: { model: 'claude-mock-1', ...body },
    headers: { 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': gw.messages.baseURL, authorization: `Bearer ${MESSAGES_MOCK_KEY}` },
  });

it('reads the setting: 10 GiB by default, 0 for no limit', () => {
  expect(DEFAULT_JOB_SETTINGS.responseStorageMaxBytes).toBe(10 * 1024 ** 3);
  expect(jobSettingsFromEnv({}).responseStorageMaxBytes).toBe(DEFAULT_JOB_SETTINGS.responseStorageMaxBytes);
  expect(jobSettingsFromEnv({ GATEWAY_RESPONSE_STORAGE_MAX_BYTES: '0' }).responseStorageMaxBytes).toBe(0);
  expect(() => jobSettingsFromEnv({ GATEWAY_RESPONSE_STORAGE_MAX_BYTES: '-1' })).toThrow('GATEWAY_RESPONSE_STORAGE_MAX_BYTES');
});

it('refuses a response to store while the organisation\'s fill the limit, without asking the provider; store: false still works; a delete makes room', async () => {
  const first = await create({ input: 'remember this' });
  expect(first.status).toBe(200);
  const asked = gw.messages.requests.length;
  const full = await create({ input: 'and this' });
  expect(full.status).toBe(400);
  expect(full.body.error).toMatchObject({ code: 'response_storage_full', type: 'invalid_request_error', param: '/store' });
  expect(full.body.error.message).toContain(`at most ${LIMIT} bytes of stored responses per organisation (GATEWAY_RESPONSE_STORAGE_MAX_BYTES)`);
  expect(gw.messages.requests.length).toBe(asked);
  // A chain from the stored one would be stored too.
  expect((await create({ input: 'go on', previous_response_id: first.body.id })).body.error?.code).toBe('response_storage_full');
  const unstored = await create({ input: 'just answer', store: false });
  expect(unstored.status).toBe(200);
  expect((await gw.call('GET', `/v1/responses/${unstored.body.id}`)).status).toBe(404);
  expect((await gw.call('DELETE', `/v1/responses/${first.body.id}`)).status).toBe(200);
  const again = await create({ input: 'and this' });
  expect(again.status).toBe(200);
  expect((await gw.call('GET', `/v1/responses/${again.body.id}`)).status).toBe(200);
});
