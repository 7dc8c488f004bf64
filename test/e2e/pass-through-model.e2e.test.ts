// The model a family's own chat call names in its path, not its body (cloud B's
// `…/models/{model}:generateContent`, cloud C's `/model/{id}/converse`), through the pass-through:
// `default.modelWhitelist` judges it as it judges a body's `model`, the log records it as
// model_requested, and a call to another model is refused before the provider sees it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudbMock, CLOUDB_PROJECT, CLOUDB_REGION, type CloudbMock } from '../mocks/cloudb/index.ts';
import { startCloudcMock, CLOUDC_ACCESS_KEY_ID, CLOUDC_REGION, CLOUDC_SECRET_ACCESS_KEY } from '../mocks/cloudc/index.ts';
import type { MockServer } from '../mocks/http/mock-server.ts';
import { serveConfigs, type ServedConfigs } from './serve-in-process.ts';

const GATEWAY_KEY = 'gw-pass-through-model-e2e';
const WHITELIST = [{ id: 'models', deny: true, 'default.modelWhitelist': { models: ['gemini-2.0-flash', 'anthropic.claude-3-7-sonnet-20250219-v1:0'] } }];

let served: ServedConfigs;
let cloudb: CloudbMock;
let cloudc: MockServer;

beforeAll(async () => {
  [cloudb, cloudc] = await Promise.all([startCloudbMock({ label: 'cloudb-model' }), startCloudcMock({ label: 'cloudc-model' })]);
  served = await serveConfigs('pass-through-model', GATEWAY_KEY, {
    cloudb: { provider: 'cloudb', custom_host: `${cloudb.url}/v1`, cloudb_region: CLOUDB_REGION, cloudb_service_account_json: cloudb.serviceAccount, input_guardrails: WHITELIST },
    cloudc: { provider: 'cloudc', custom_host: cloudc.url, cloudc_region: CLOUDC_REGION, cloudc_access_key_id: CLOUDC_ACCESS_KEY_ID, cloudc_secret_access_key: CLOUDC_SECRET_ACCESS_KEY, input_guardrails: WHITELIST },
  });
});

afterAll(async () => {
  await served?.close();
  await Promise.all([cloudb, cloudc].map((m) => m?.close()));
});

function post(config: string, path: string, body: object): Promise<Response> {
  return fetch(`${served.gateway.url}/v1${path}`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': config, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const calls = {
  cloudb: {
    path: (model: string) => `/projects/${CLOUDB_PROJECT}/locations/${CLOUDB_REGION}/publishers/google/models/${model}:generateContent`,
    body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
    allowed: 'gemini-2.0-flash',
    mock: () => cloudb,
  },
  cloudc: {
    path: (model: string) => `/model/${encodeURIComponent(model)}/converse`,
    body: { messages: [{ role: 'user', content: [{ text: 'hi' }] }] },
    allowed: 'anthropic.claude-3-7-sonnet-20250219-v1:0',
    mock: () => cloudc,
  },
} as const;

describe('the model a pass-through call names in its path', () => {
  for (const [config, call] of Object.entries(calls)) {
    it(`${config}: modelWhitelist lets the listed model through and refuses another before the provider sees it`, async () => {
      // Model calls only: cloud B's mock also serves the OAuth token exchange.
      const sent = () => call.mock().requests.filter((r) => r.path !== '/token').length;
      const before = sent();
      const allowed = await post(config, call.path(call.allowed), call.body);
      expect(allowed.status).toBe(200);
      await allowed.arrayBuffer();
      expect(sent()).toBe(before + 1);
      const refused = await post(config, call.path('some-other-model'), call.body);
      expect(refused.status).toBe(446);
      const body = (await refused.json()) as { hook_results: { before_request_hooks: { checks: { explanation: string }[] }[] } };
      expect(body.hook_results.before_request_hooks[0].checks[0].explanation).toContain('some-other-model is not allowed');
      expect(sent()).toBe(before + 1);
    });
  }
});
