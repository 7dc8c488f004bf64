// The three families the chat completions are translated to (the messages API, cloud B's
// generateContent, cloud C's converse), each a mock, with a target config for each: for the e2e
// tests of what the translations carry (thinking, structured outputs), served by a gateway with the
// configs a test makes of them.
import type { MockServer } from '../mocks/http/mock-server.ts';
import { startMessagesMock, MESSAGES_MOCK_KEY } from '../mocks/messages/index.ts';
import { startCloudcMock, CLOUDC_ACCESS_KEY_ID, CLOUDC_REGION, CLOUDC_SECRET_ACCESS_KEY } from '../mocks/cloudc/index.ts';
import { startCloudbMock, CLOUDB_REGION, type CloudbMock } from '../mocks/cloudb/index.ts';
import { serveConfigs, type ServedConfigs } from './serve-in-process.ts';

/** A target config per family, pointed at its mock. */
export interface FamilyTargets {
  anthropic: Record<string, unknown>;
  cloudb: Record<string, unknown>;
  cloudc: Record<string, unknown>;
}

export interface TranslatedFamilies {
  served: ServedConfigs;
  messages: MockServer;
  cloudc: MockServer;
  cloudb: CloudbMock;
  close(): Promise<void>;
}

/** The three mocks, and a gateway serving `configsOf` their targets (saved configs by id) with `adminKey`. */
export async function serveTranslatedFamilies(label: string, adminKey: string, configsOf: (targets: FamilyTargets) => Record<string, unknown>): Promise<TranslatedFamilies> {
  const [messages, cloudc, cloudb] = await Promise.all([startMessagesMock({ label: 'messages' }), startCloudcMock({ label: 'cloudc' }), startCloudbMock({ label: 'cloudb' })]);
  const mocks = [messages, cloudc, cloudb];
  try {
    const served = await serveConfigs(label, adminKey, configsOf({
      anthropic: { provider: 'anthropic', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL },
      cloudb: { provider: 'cloudb', custom_host: `${cloudb.url}/v1`, cloudb_region: CLOUDB_REGION, cloudb_service_account_json: cloudb.serviceAccount },
      cloudc: { provider: 'cloudc', custom_host: cloudc.url, cloudc_region: CLOUDC_REGION, cloudc_access_key_id: CLOUDC_ACCESS_KEY_ID, cloudc_secret_access_key: CLOUDC_SECRET_ACCESS_KEY },
    }));
    return {
      served, messages, cloudc, cloudb,
      async close() {
        await served.close();
        await Promise.all(mocks.map((m) => m.close()));
      },
    };
  } catch (error) {
    await Promise.all(mocks.map((m) => m.close()));
    throw error;
  }
}
