// Done-when for the provider families: one saved fallback config over the messages-style API and
// clouds A, B and C serves the vendor SDK's chat calls, streamed and not, through each family in
// turn (the ones before it failing); and each family reached by the §5.4 headers alone.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupInference } from '../../runtime/inference/index.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { startGateway, type RunningGateway } from '../../runtime/server/start.ts';
import { startCloudaMock, CLOUDA_MOCK_KEY } from '../mocks/clouda/index.ts';
import { startCloudbMock, CLOUDB_PROJECT, CLOUDB_REGION, CLOUDB_STATIC_TOKEN, type CloudbMock } from '../mocks/cloudb/index.ts';
import {
  startCloudcMock, CLOUDC_REGION, CLOUDC_SESSION_ACCESS_KEY_ID, CLOUDC_SESSION_SECRET, CLOUDC_SESSION_TOKEN, CLOUDC_ACCESS_KEY_ID, CLOUDC_SECRET_ACCESS_KEY,
} from '../mocks/cloudc/index.ts';
import type { MockServer } from '../mocks/http/mock-server.ts';
import { startMessagesMock, MESSAGES_MOCK_KEY } from '../mocks/messages/index.ts';

const GATEWAY_KEY = 'gw-providers-e2e';
const MODEL = 'family-model';

let gateway: RunningGateway;
let dir: string;
let messages: MockServer;
let clouda: MockServer;
let cloudb: CloudbMock;
let cloudc: MockServer;

beforeAll(async () => {
  [messages, clouda, cloudb, cloudc] = await Promise.all([
    startMessagesMock({ label: 'messages' }),
    startCloudaMock({ label: 'clouda', deployments: { 'family-deployment': 'gpt-mock-4o' } }),
    startCloudbMock({ label: 'cloudb' }),
    startCloudcMock({ label: 'cloudc' }),
  ]);
  dir = await mkdtemp(join(tmpdir(), 'gateway-providers-e2e-'));
  const configs = join(dir, 'configs');
  await mkdir(configs);
  await writeFile(join(configs, 'families.json'), JSON.stringify({
    strategy: { mode: 'fallback', on_status_codes: [503] },
    targets: [
      { provider: 'anthropic', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL },
      { provider: 'clouda', api_key: CLOUDA_MOCK_KEY, custom_host: `${clouda.url}/openai`, deployment_id: 'family-deployment', api_version: '2024-10-21' },
      { provider: 'cloudb', custom_host: `${cloudb.url}/v1`, cloudb_region: CLOUDB_REGION, cloudb_service_account_json: cloudb.serviceAccount },
      {
        provider: 'cloudc', custom_host: cloudc.url, cloudc_region: CLOUDC_REGION,
        cloudc_access_key_id: CLOUDC_ACCESS_KEY_ID, cloudc_secret_access_key: CLOUDC_SECRET_ACCESS_KEY,
      },
    ],
  }, null, 2));
  gateway = await startGateway({
    port: 0,
    dataDir: join(dir, 'data'),
    configsDir: configs,
    seedApiKey: GATEWAY_KEY,
    logger: silentLogger,
    setup: async (setup) => {
      await setupInference(setup, { settings: { retryBaseMs: 1, retryMaxMs: 20, inlineConfigCacheSize: 50 } });
    },
  });
});

afterAll(async () => {
  await gateway.close();
  await Promise.all([messages, clouda, cloudb, cloudc].map((m) => m.close()));
  await rm(dir, { recursive: true, force: true });
});

function sdk(headers: Record<string, string>, apiKey = 'not-used-by-saved-config'): OpenAI {
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, ...headers } });
}

const FAMILY_PATHS = {
  messages: (stream: boolean) => ({ mock: () => messages, path: '/v1/messages', stream }),
  clouda: (stream: boolean) => ({ mock: () => clouda, path: '/openai/deployments/family-deployment/chat/completions', stream }),
  cloudb: (stream: boolean) => ({ mock: () => cloudb, path: `/v1/projects/${CLOUDB_PROJECT}/locations/${CLOUDB_REGION}/publishers/google/models/${MODEL}:${stream ? 'streamGenerateContent' : 'generateContent'}`, stream }),
  cloudc: (stream: boolean) => ({ mock: () => cloudc, path: `/model/${MODEL}/${stream ? 'converse-stream' : 'converse'}`, stream }),
};
const ORDER = ['messages', 'clouda', 'cloudb', 'cloudc'] as const;
const PROVIDER = { messages: 'anthropic', clouda: 'clouda', cloudb: 'cloudb', cloudc: 'cloudc' } as const;

describe('a fallback config over every family serves the vendor SDK through each family in turn', () => {
  for (const [index, family] of ORDER.entries()) {
    for (const stream of [false, true]) {
      it(`${family}${stream ? ', streamed' : ''}`, async () => {
        // Every family before this one answers 503, so the fallback moves on to it.
        for (const earlier of ORDER.slice(0, index)) {
          const { mock, path } = FAMILY_PATHS[earlier](stream);
          mock().script({ path, status: 503 });
        }
        const client = sdk({ 'x-gateway-config': 'families' });
        const messagesIn = [{ role: 'system' as const, content: 'Answer briefly.' }, { role: 'user' as const, content: `hello ${family}` }];
        let text = '';
        let finish: string | null = null;
        let headers: Headers;
        if (stream) {
          const { data, response } = await client.chat.completions.create({ model: MODEL, messages: messagesIn, stream: true, stream_options: { include_usage: true } }).withResponse();
          headers = response.headers;
          let usage: OpenAI.CompletionUsage | null = null;
          for await (const chunk of data) {
            text += chunk.choices[0]?.delta?.content ?? '';
            finish = chunk.choices[0]?.finish_reason ?? finish;
            usage = chunk.usage ?? usage;
          }
          expect(usage?.completion_tokens).toBe(3);
        } else {
          const { data, response } = await client.chat.completions.create({ model: MODEL, messages: messagesIn }).withResponse();
          headers = response.headers;
          text = data.choices[0].message.content ?? '';
          finish = data.choices[0].finish_reason;
          expect(data.usage?.completion_tokens).toBe(3);
        }
        expect(text).toBe(`[${family}] hello ${family}`);
        expect(finish).toBe('stop');
        expect(headers.get('x-gateway-last-used-option-index')).toBe(`config.targets[${index}]`);
        expect(headers.get('x-gateway-provider')).toBe(PROVIDER[family]);
        // The family's mock saw the request in its own format (system prompt moved where it belongs).
        const seen = FAMILY_PATHS[family](stream).mock().requests.at(-1)!;
        expect(seen.path).toBe(FAMILY_PATHS[family](stream).path);
      });
    }
  }

  it('returns the last family\'s error, with its status and name, when every family fails', async () => {
    for (const family of ORDER) {
      const { mock, path } = FAMILY_PATHS[family](false);
      mock().script({ path, status: 503 });
    }
    const error = (await sdk({ 'x-gateway-config': 'families' }).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(503);
    expect(error.error).toMatchObject({ provider: 'cloudc', code: 'ServiceUnavailableException' });
  });
});

describe('families reached by headers alone (SPEC §5.2, §5.4)', () => {
  it('messages-style: Authorization: Bearer becomes x-api-key', async () => {
    const data = await sdk({ 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': messages.baseURL }, MESSAGES_MOCK_KEY)
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'by headers' }] });
    expect(data.choices[0].message.content).toBe('[messages] by headers');
    const seen = messages.requests.at(-1)!;
    expect(seen.headers['x-api-key']).toBe(MESSAGES_MOCK_KEY);
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('messages-style: an "overloaded" 529 is retried by a retry that names no statuses', async () => {
    messages.script({ path: '/v1/messages', status: 529 });
    const before = messages.requests.length;
    const config = JSON.stringify({ provider: 'anthropic', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL, retry: { attempts: 1 } });
    const data = await sdk({ 'x-gateway-config': config }).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'once more' }] });
    expect(data.choices[0].message.content).toBe('[messages] once more');
    expect(messages.requests.slice(before).map((r) => r.status)).toEqual([529, 200]);
  });

  it('messages-style: a pass-through /v1/messages stream the API opens with overloaded_error is its own 529 alone, and retried', async () => {
    const target = { provider: 'anthropic', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL };
    const send = (config: Record<string, unknown>) => fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': JSON.stringify(config), 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'through as it is' }] }),
    });
    const overloaded = { path: '/v1/messages', streamError: { after: 0, type: 'overloaded_error', message: 'Overloaded' } };
    messages.script(overloaded);
    const alone = await send(target);
    // What the API answers when it is overloaded before a stream begins, which its SDK retries.
    expect(alone.status).toBe(529);
    expect(await alone.json()).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    messages.script(overloaded);
    const retried = await send({ ...target, retry: { attempts: 1 } });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('x-gateway-retry-attempt-count')).toBe('1');
    const text = await retried.text();
    expect(text).toContain('event: message_start');
    expect(text).toContain('event: message_stop');
  });

  it('cloud A: x-gateway-clouda-deployment-id and -api-version, the Bearer token converted to api-key', async () => {
    const data = await sdk({
      'x-gateway-provider': 'clouda',
      'x-gateway-custom-host': `${clouda.url}/openai`,
      'x-gateway-clouda-deployment-id': 'family-deployment',
      'x-gateway-clouda-api-version': '2024-06-01',
    }, CLOUDA_MOCK_KEY).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'by headers' }] });
    expect(data.choices[0].message.content).toBe('[clouda] by headers');
    expect(data.model).toBe('gpt-mock-4o');
    const seen = clouda.requests.at(-1)!;
    expect(seen.path).toBe('/openai/deployments/family-deployment/chat/completions');
    expect(seen.query).toBe('api-version=2024-06-01');
    expect(seen.headers['api-key']).toBe(CLOUDA_MOCK_KEY);
    expect(seen.headers.authorization).toBeUndefined();
  });

  it('cloud B: x-gateway-cloudb-project-id and -region with an access token, X-cloudb-AI-LLM-Request-Type forwarded', async () => {
    const data = await sdk({
      'x-gateway-provider': 'cloudb',
      'x-gateway-custom-host': `${cloudb.url}/v1`,
      'x-gateway-cloudb-project-id': CLOUDB_PROJECT,
      'x-gateway-cloudb-region': CLOUDB_REGION,
      'X-cloudb-AI-LLM-Request-Type': 'dedicated',
    }, CLOUDB_STATIC_TOKEN).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'by headers' }] });
    expect(data.choices[0].message.content).toBe('[cloudb] by headers');
    const seen = cloudb.requests.at(-1)!;
    expect(seen.path).toBe(`/v1/projects/${CLOUDB_PROJECT}/locations/${CLOUDB_REGION}/publishers/google/models/${MODEL}:generateContent`);
    expect(seen.headers['x-cloudb-ai-llm-request-type']).toBe('dedicated');
    expect(seen.headers.authorization).toBe(`Bearer ${CLOUDB_STATIC_TOKEN}`);
  });

  it('cloud C: x-gateway-cloudc-* with a session token, signed and verified', async () => {
    const data = await sdk({
      'x-gateway-provider': 'cloudc',
      'x-gateway-custom-host': cloudc.url,
      'x-gateway-cloudc-access-key-id': CLOUDC_SESSION_ACCESS_KEY_ID,
      'x-gateway-cloudc-secret-access-key': CLOUDC_SESSION_SECRET,
      'x-gateway-cloudc-session-token': CLOUDC_SESSION_TOKEN,
      'x-gateway-cloudc-region': CLOUDC_REGION,
    }).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'by headers' }] });
    expect(data.choices[0].message.content).toBe('[cloudc] by headers');
    const seen = cloudc.requests.at(-1)!;
    expect(seen.headers['x-amz-security-token']).toBe(CLOUDC_SESSION_TOKEN);
    expect(String(seen.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=ASIAMOCKGATEWAY00002\/\d{8}\/us-east-1\/bedrock\/aws4_request, /);
    // Gateway headers never reach the provider.
    expect(Object.keys(seen.headers).filter((h) => h.startsWith('x-gateway-'))).toEqual([]);
  });

  it('refuses a provider-option header no target of the route reads, before any provider is called', async () => {
    const before = cloudc.requests.length;
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'cloudc', 'x-gateway-custom-host': cloudc.url, 'x-gateway-cloudb-region': CLOUDB_REGION, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string; param: string; message: string } }).error).toMatchObject({ code: 'invalid_header', param: 'x-gateway-cloudb-region', message: expect.stringContaining('cloudb providers') });
    expect(cloudc.requests.length).toBe(before);
  });

  it('refuses a cloud A header the target would not read: a resource name beside a custom host, a model name beside a deployment', async () => {
    const before = clouda.requests.length;
    const base = { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'clouda', 'x-gateway-custom-host': `${clouda.url}/openai`, authorization: `Bearer ${CLOUDA_MOCK_KEY}`, 'content-type': 'application/json' };
    for (const [extra, param] of [
      [{ 'x-gateway-clouda-resource-name': 'r', 'x-gateway-clouda-deployment-id': 'family-deployment' }, 'x-gateway-clouda-resource-name'],
      [{ 'x-gateway-clouda-deployment-id': 'family-deployment', 'x-gateway-clouda-model-name': 'gpt-mock-4o' }, 'x-gateway-clouda-model-name'],
    ] as const) {
      const res = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { ...base, ...extra }, body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }) });
      expect(res.status, param).toBe(400);
      expect(((await res.json()) as { error: { code: string; param: string; message: string } }).error).toMatchObject({ code: 'invalid_header', param, message: expect.stringContaining('no target of this route reads') });
    }
    expect(clouda.requests.length).toBe(before);
  });
});

describe('pass-through to each family, with the family\'s own auth', () => {
  it('messages-style: GET /v1/models with x-api-key, answered untouched', async () => {
    const res = await fetch(`${gateway.url}/v1/models`, { headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': messages.baseURL, authorization: `Bearer ${MESSAGES_MOCK_KEY}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { type: string }[] }).data[0].type).toBe('model');
  });

  it('cloud C: any path is signed (the mock verifies it) and the body goes through byte for byte', async () => {
    const body = '{"inputText":"pass me through","x":[1,2,3]}';
    const res = await fetch(`${gateway.url}/v1/model/vendorx.embed-v1%3A0/invoke?trace=1`, {
      method: 'POST',
      headers: {
        'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'cloudc', 'x-gateway-custom-host': cloudc.url, 'content-type': 'application/json',
        'x-gateway-cloudc-access-key-id': CLOUDC_ACCESS_KEY_ID, 'x-gateway-cloudc-secret-access-key': CLOUDC_SECRET_ACCESS_KEY, 'x-gateway-cloudc-region': CLOUDC_REGION,
      },
      body,
    });
    expect(res.status).toBe(200);
    const echoed = (await res.json()) as { path: string; raw_query: string; body: string };
    expect(echoed).toMatchObject({ path: '/model/vendorx.embed-v1%3A0/invoke', raw_query: 'trace=1', body });
  });

  it('answers 400 endpoint_not_supported where a family has no such endpoint, without calling it', async () => {
    const before = messages.requests.length;
    const res = await fetch(`${gateway.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': messages.baseURL, authorization: `Bearer ${MESSAGES_MOCK_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', input: 'y' }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: object }).error).toMatchObject({ code: 'endpoint_not_supported', provider: 'anthropic', endpoint: 'embeddings' });
    expect(messages.requests.length).toBe(before);
  });
});
