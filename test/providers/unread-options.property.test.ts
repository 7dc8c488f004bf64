// compiler/config/unread-options.ts says which cloud options a target never reads (a compile
// warning). Held here to the adapters: for any mix of options, with and without a custom host, on
// every endpoint cloud A has and pass-through, dropping an option said to be unread changes nothing
// the adapter prepares (the URL, the headers, or the refusal); the same for cloud C's api_key beside
// its access keys, and cloud B's beside a service account (through the mock's token endpoint).
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { cloudaUnread, unreadOptions } from '../../compiler/config/unread-options.ts';
import { providerEntry } from '../../compiler/config/providers.ts';
import { GatewayError } from '../../runtime/core/errors.ts';
import { cloudaAdapter } from '../../runtime/providers/clouda/index.ts';
import { cloudbAdapter } from '../../runtime/providers/cloudb/index.ts';
import { cloudcAdapter } from '../../runtime/providers/cloudc/index.ts';
import { HostPolicy } from '../../runtime/providers/host-policy.ts';
import { CLOUDB_REGION, startCloudbMock } from '../mocks/cloudb/index.ts';
import type { EndpointKind } from '../../runtime/providers/types.ts';
import { CALL_OF_ENDPOINT, providerCall } from './adapter-calls.ts';

const adapter = cloudaAdapter();

const CALLS = CALL_OF_ENDPOINT;
const ENDPOINTS = [...providerEntry('clouda')!.endpoints, 'passthrough' as const];

const name = fc.constantFrom('a', 'b');
const deployment = fc.record({ deployment_id: name, alias: fc.constantFrom('m', 'other'), api_version: fc.constantFrom('2024-01-01', '2024-06-01'), is_default: fc.boolean() }, { requiredKeys: ['deployment_id', 'alias', 'api_version'] });
const options = fc.record(
  {
    clouda_deployment_type: fc.constantFrom('serverless', 'managed'),
    resource_name: name,
    clouda_resource_name: name,
    deployment_id: name,
    clouda_deployment_id: name,
    api_version: fc.constantFrom('2024-01-01'),
    clouda_api_version: fc.constantFrom('2024-06-01'),
    deployments: fc.array(deployment, { minLength: 1, maxLength: 2 }),
    clouda_model_name: name,
    clouda_region: fc.constantFrom('eastus', 'westus'),
    clouda_deployment_name: name,
    clouda_endpoint_name: name,
  },
  { requiredKeys: [] },
);

/** What the adapter prepares for a call, comparable: the URL and headers, or the refusal's code and param. */
function prepared(endpoint: EndpointKind, opts: Record<string, unknown>, customHost: string | null): unknown {
  try {
    const call = adapter.prepare(providerCall({ ...CALLS[endpoint], options: opts, customHost }));
    if (call instanceof Promise) throw new Error('cloud A prepares synchronously');
    return { url: call.url, headers: call.headers };
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    return { refused: error.code, param: error.param };
  }
}

describe('cloud A options said to be unread', () => {
  test.prop([options, fc.boolean()], { numRuns: 300 })('change nothing the adapter prepares when dropped', (opts, withHost) => {
    const customHost = withHost ? 'http://127.0.0.1:9/openai' : null;
    for (const key of cloudaUnread(opts, withHost).keys()) {
      const without = { ...opts };
      delete without[key as keyof typeof without];
      for (const endpoint of ENDPOINTS) {
        expect(prepared(endpoint, without, customHost), `${key} on ${endpoint}`).toEqual(prepared(endpoint, opts, customHost));
      }
    }
  });
});

describe('cloud C\'s api_key beside its access keys', () => {
  const cloudc = cloudcAdapter(() => new Date('2026-01-02T03:04:05Z'));
  const credentials = fc.record({ cloudc_access_key_id: fc.constantFrom('AKIDEXAMPLE'), cloudc_secret_access_key: fc.constantFrom('secret'), cloudc_session_token: fc.constantFrom('session') }, { requiredKeys: [] });

  test.prop([credentials, fc.boolean()], { numRuns: 50 })('is said to be unread exactly when dropping it changes nothing prepared', (keys, withHost) => {
    const options = { cloudc_region: 'us-east-1', ...keys };
    const call = (apiKey: string | null) => {
      try {
        const prepared = cloudc.prepare(providerCall({ ...CALLS.chat, apiKey, options, customHost: withHost ? 'http://127.0.0.1:9' : null }));
        if (prepared instanceof Promise) throw new Error('cloud C prepares synchronously');
        return { url: prepared.url, headers: prepared.headers };
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        return { refused: error.code, param: error.param };
      }
    };
    const unread = unreadOptions('cloudc', { ...options, api_key: 'k' }, withHost).has('api_key');
    if (unread) expect(call(null)).toEqual(call('k'));
    else expect(call(null)).not.toEqual(call('k'));
  });
});

describe('cloud B\'s api_key beside its service account', () => {
  it('is said to be unread, and dropping it changes nothing prepared: the account\'s token is sent', async () => {
    const mock = await startCloudbMock({ label: 'unread' });
    try {
      const cloudb = cloudbAdapter({ hostPolicy: new HostPolicy() });
      const options = { cloudb_region: CLOUDB_REGION, cloudb_service_account_json: mock.serviceAccount };
      expect(unreadOptions('cloudb', { ...options, api_key: 'ya29.unused' }, true).has('api_key')).toBe(true);
      const prepare = async (apiKey: string | null) => {
        const prepared = await cloudb.prepare(providerCall({ ...CALLS.chat, apiKey, options, customHost: `${mock.url}/v1` }));
        return { url: prepared.url, headers: prepared.headers };
      };
      const [withKey, without] = [await prepare('ya29.unused'), await prepare(null)];
      expect(withKey).toEqual(without);
      expect(String(withKey.headers.authorization)).toMatch(/^Bearer ya29\.mock-/);
    } finally {
      await mock.close();
    }
  });
});
