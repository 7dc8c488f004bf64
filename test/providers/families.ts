// The provider families the conformance suite runs against: each starts its protocol-faithful
// mock and says how a config target reaches it, with a good and a bad credential.
import type { MockServer } from '../mocks/http/mock-server.ts';
import { startCloudaMock, CLOUDA_MOCK_KEY } from '../mocks/clouda/index.ts';
import { startCloudbMock, CLOUDB_REGION, type CloudbMock } from '../mocks/cloudb/index.ts';
import { startCloudcMock, CLOUDC_ACCESS_KEY_ID, CLOUDC_REGION, CLOUDC_SECRET_ACCESS_KEY } from '../mocks/cloudc/index.ts';
import { startMessagesMock, MESSAGES_MOCK_KEY } from '../mocks/messages/index.ts';
import { startVendorMock, VENDOR_MOCK_KEY } from '../mocks/vendor/index.ts';

export interface FamilyMock {
  mock: MockServer;
  /** A config target that reaches the mock with a valid credential. */
  target(extra?: Record<string, unknown>): Record<string, unknown>;
  /** The same target with a credential the mock refuses. */
  badCredentialTarget(): Record<string, unknown>;
  /** Status the family answers a refused credential with (the provider's own). */
  authFailureStatus: number;
}

export interface Family {
  /** Provider name in configs and in x-gateway-provider / error bodies. */
  provider: string;
  /** The chat endpoint the mock records, for scripting failures. */
  chatPath(model: string, stream: boolean): string;
  /** Whether the mock answers with tool calls when tools are offered (the vendor mock does not). */
  tools: boolean;
  /** Whether the mock can inject an in-band stream error (the vendor mock cannot). */
  streamErrors: boolean;
  /** Whether answers come back in the vendor's shape untranslated (the vendor-shaped adapters and cloud A). */
  vendorShaped: boolean;
  start(label: string): Promise<FamilyMock>;
}

export const FAMILIES: readonly Family[] = [
  {
    provider: 'vendor',
    chatPath: () => '/v1/chat/completions',
    tools: false,
    streamErrors: false,
    vendorShaped: true,
    async start(label) {
      const mock = await startVendorMock({ label });
      const target = (extra = {}) => ({ provider: 'vendor', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL, ...extra });
      return { mock, target, badCredentialTarget: () => target({ api_key: 'sk-wrong-key-000000' }), authFailureStatus: 401 };
    },
  },
  {
    provider: 'groq',
    chatPath: () => '/v1/chat/completions',
    tools: false,
    streamErrors: false,
    vendorShaped: true,
    async start(label) {
      const mock = await startVendorMock({ label });
      const target = (extra = {}) => ({ provider: 'groq', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL, ...extra });
      return { mock, target, badCredentialTarget: () => target({ api_key: 'gsk-wrong-key-0000' }), authFailureStatus: 401 };
    },
  },
  {
    provider: 'anthropic',
    chatPath: () => '/v1/messages',
    tools: true,
    streamErrors: true,
    vendorShaped: false,
    async start(label) {
      const mock = await startMessagesMock({ label });
      const target = (extra = {}) => ({ provider: 'anthropic', api_key: MESSAGES_MOCK_KEY, custom_host: mock.baseURL, ...extra });
      return { mock, target, badCredentialTarget: () => target({ api_key: 'sk-ant-wrong-0000' }), authFailureStatus: 401 };
    },
  },
  {
    provider: 'clouda',
    chatPath: () => '/openai/deployments/chat-prod/chat/completions',
    tools: false,
    streamErrors: false,
    vendorShaped: true,
    async start(label) {
      const mock = await startCloudaMock({ label });
      const target = (extra = {}) => ({
        provider: 'clouda',
        api_key: CLOUDA_MOCK_KEY,
        custom_host: `${mock.url}/openai`,
        deployments: [{ deployment_id: 'chat-prod', alias: 'conformance-model', api_version: '2024-10-21', is_default: true }],
        ...extra,
      });
      return { mock, target, badCredentialTarget: () => target({ api_key: 'wrong-clouda-key' }), authFailureStatus: 401 };
    },
  },
  {
    provider: 'cloudb',
    chatPath: (model, stream) => `/v1/projects/mock-project-123/locations/${CLOUDB_REGION}/publishers/google/models/${model}:${stream ? 'streamGenerateContent' : 'generateContent'}`,
    tools: true,
    streamErrors: true,
    vendorShaped: false,
    async start(label) {
      const mock: CloudbMock = await startCloudbMock({ label });
      const target = (extra = {}) => ({ provider: 'cloudb', custom_host: `${mock.url}/v1`, cloudb_region: CLOUDB_REGION, cloudb_service_account_json: mock.serviceAccount, ...extra });
      // A key the token endpoint cannot verify: the gateway maps the refused exchange to 401.
      return { mock, target, badCredentialTarget: () => target({ cloudb_service_account_json: mock.foreignServiceAccount }), authFailureStatus: 401 };
    },
  },
  {
    provider: 'cloudc',
    chatPath: (model, stream) => `/model/${encodeURIComponent(model)}/${stream ? 'converse-stream' : 'converse'}`,
    tools: true,
    streamErrors: true,
    vendorShaped: false,
    async start(label) {
      const mock = await startCloudcMock({ label });
      const target = (extra = {}) => ({
        provider: 'cloudc',
        custom_host: mock.url,
        cloudc_access_key_id: CLOUDC_ACCESS_KEY_ID,
        cloudc_secret_access_key: CLOUDC_SECRET_ACCESS_KEY,
        cloudc_region: CLOUDC_REGION,
        ...extra,
      });
      // The service answers a signature made with the wrong secret with 403 InvalidSignatureException.
      return { mock, target, badCredentialTarget: () => target({ cloudc_secret_access_key: 'not-the-secret' }), authFailureStatus: 403 };
    },
  },
];
