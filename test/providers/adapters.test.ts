// Each adapter's URL, credential and endpoint rules, called directly: where the request goes, with
// which headers, and the 400 (with a code) where a family has no such endpoint or lacks a setting.
import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../runtime/providers/anthropic/index.ts';
import { cloudaAdapter, DEFAULT_API_VERSION } from '../../runtime/providers/clouda/index.ts';
import { cloudbAdapter } from '../../runtime/providers/cloudb/index.ts';
import { cloudcAdapter } from '../../runtime/providers/cloudc/index.ts';
import { COMPATIBLE_PROVIDERS } from '../../runtime/providers/compatible/index.ts';
import { defaultProviders } from '../../runtime/providers/registry.ts';
import type { EndpointKind } from '../../runtime/providers/types.ts';
import { vendorAdapter } from '../../runtime/providers/vendor/index.ts';
import { prepare, refusal } from './adapter-calls.ts';
import { PROVIDERS } from '../../compiler/config/providers.ts';

const CHAT = { model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }] };
const PATHS: Record<EndpointKind, string> = {
  chat: '/chat/completions', completions: '/completions', embeddings: '/embeddings', audio: '/audio/speech', images: '/images/generations', models: '/models', passthrough: '/files/abc',
};

describe('registry', () => {
  it('knows the vendor (also as openai), the messages API, clouds A, B, C and at least ten OpenAI-compatible providers', () => {
    const registry = defaultProviders();
    for (const name of ['vendor', 'openai', 'anthropic', 'clouda', 'cloudb', 'cloudc', 'OpenAI', 'GROQ']) expect(registry.has(name)).toBe(true);
    expect(COMPATIBLE_PROVIDERS.length).toBeGreaterThanOrEqual(10);
    for (const p of COMPATIBLE_PROVIDERS) {
      expect(registry.get(p.name).name).toBe(p.name);
      expect(new URL(p.baseUrl).protocol).toMatch(/^https?:$/);
    }
    expect(() => registry.get('nope')).toThrow(expect.objectContaining({ code: 'unsupported_provider' }));
  });

  it('refuses exactly the endpoints schema/providers.json does not list for a provider (clouda: per deployment type, below)', async () => {
    const registry = defaultProviders();
    const settings = { cloudb_region: 'us-central1', cloudb_project_id: 'p', cloudc_region: 'us-east-1' };
    for (const entry of PROVIDERS.filter((p) => p.name !== 'clouda')) {
      for (const endpoint of ['chat', 'completions', 'embeddings', 'audio', 'images', 'models'] as const) {
        const error = await refusal(registry.get(entry.name), { endpoint, path: PATHS[endpoint], method: endpoint === 'models' ? 'GET' : 'POST', body: { ...CHAT, input: 'x', prompt: 'x' }, options: settings });
        expect(error?.code === 'endpoint_not_supported', `${entry.name} ${endpoint}`).toBe(!entry.endpoints.includes(endpoint));
      }
    }
  });

  it('sends compatible providers to their own base URL, or to a custom host', async () => {
    const registry = defaultProviders();
    expect((await prepare(registry.get('groq'), { body: CHAT })).url).toBe('https://api.groq.com/openai/v1/chat/completions');
    expect((await prepare(registry.get('perplexity'), { body: CHAT })).url).toBe('https://api.perplexity.ai/chat/completions');
    expect((await prepare(registry.get('ollama'), { body: CHAT, apiKey: null, customHost: 'http://10.0.0.5:11434/v1' })).url).toBe('http://10.0.0.5:11434/v1/chat/completions');
    expect((await prepare(registry.get('ollama'), { body: CHAT, apiKey: null })).headers.authorization).toBeUndefined();
    expect((await refusal(registry.get('groq'), { body: CHAT, apiKey: null }))?.code).toBe('missing_provider_credentials');
    expect((await refusal(registry.get('perplexity'), { endpoint: 'embeddings', path: '/embeddings', body: { input: 'x' } }))?.code).toBe('endpoint_not_supported');
  });
});

describe('vendor', () => {
  it('passes the body through untouched and adds organization and project headers', async () => {
    const raw = Buffer.from('{"model":"gpt-x","messages":[{"role":"user","content":"hi"}]}');
    const prepared = await prepare(vendorAdapter('https://vendor.example/v1'), { rawBody: raw, body: undefined, options: { vendor_organization: 'org-1', vendor_project: 'proj-2' } });
    expect(prepared.url).toBe('https://vendor.example/v1/chat/completions');
    expect(prepared.body).toBe(raw);
    expect(prepared.headers).toEqual({ authorization: 'Bearer test-key', 'vendor-organization': 'org-1', 'vendor-project': 'proj-2' });
  });

  it('names itself in error bodies unless strict_vendor_compliance asks for the vendor\'s bytes exactly', async () => {
    const loose = await prepare(vendorAdapter(), { body: CHAT });
    const body = Buffer.from('{"error":{"message":"bad","type":"invalid_request_error","param":"model","code":"x"}}');
    expect(loose.response?.error?.(400, body, {})).toEqual({ error: { message: 'bad', type: 'invalid_request_error', param: 'model', code: 'x', provider: 'vendor' } });
    expect((await prepare(vendorAdapter(), { body: CHAT, strictVendorCompliance: true })).response).toBeNull();
    // Pass-through answers are never rewritten.
    expect((await prepare(vendorAdapter(), { endpoint: 'passthrough', path: '/files/x', method: 'GET', body: undefined })).response).toBeNull();
  });
});

describe('messages API', () => {
  it('sends the token as x-api-key with the API version, to /messages', async () => {
    const prepared = await prepare(anthropicAdapter(), { body: CHAT });
    expect(prepared.url).toBe('https://api.anthropic.com/v1/messages');
    expect(prepared.headers).toMatchObject({ 'x-api-key': 'test-key', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' });
    expect(prepared.headers.authorization).toBeUndefined();
  });

  it.each(['completions', 'embeddings', 'audio', 'images'] as const)('answers 400 endpoint_not_supported for %s', async (endpoint) => {
    const error = await refusal(anthropicAdapter(), { endpoint, path: PATHS[endpoint], body: { model: 'x', input: 'y', prompt: 'z' } });
    expect(error).toMatchObject({ code: 'endpoint_not_supported', status: 400, details: { provider: 'anthropic', endpoint } });
  });

  it('refuses parameters that change the answer\'s shape instead of dropping them', async () => {
    expect((await refusal(anthropicAdapter(), { body: { ...CHAT, n: 2 } }))?.code).toBe('unsupported_parameter');
    // Its URL is the adapter's: a client query string has nowhere to go, so it is refused, not dropped.
    expect(await refusal(anthropicAdapter(), { body: CHAT, path: '/chat/completions?beta=1' })).toMatchObject({ code: 'unsupported_parameter', param: 'beta' });
    const cloudOptions = { cloudb_region: 'us-central1', cloudb_project_id: 'p', cloudc_region: 'us-east-1' };
    for (const adapter of [cloudbAdapter(), cloudcAdapter()]) {
      expect(await refusal(adapter, { body: CHAT, path: '/chat/completions?x=1', options: cloudOptions, apiKey: 'k' })).toMatchObject({ code: 'unsupported_parameter', param: 'x' });
    }
    expect(await refusal(cloudbAdapter(), { endpoint: 'embeddings', body: { model: 'm', input: 'x' }, path: '/embeddings?x=1', options: cloudOptions, apiKey: 'k' })).toMatchObject({ code: 'unsupported_parameter', param: 'x' });
    // A path the provider receives as it is keeps its query.
    expect((await prepare(anthropicAdapter(), { endpoint: 'models', path: '/models?limit=5', method: 'GET', body: undefined, rawBody: null })).url).toMatch(/\/models\?limit=5$/);
    expect((await refusal(anthropicAdapter(), { body: { ...CHAT, response_format: { type: 'json_object' } } }))?.param).toBe('response_format');
    expect((await refusal(anthropicAdapter(), { body: { ...CHAT, logprobs: true } }))?.param).toBe('logprobs');
  });

  it('passes other paths through with its own auth', async () => {
    const prepared = await prepare(anthropicAdapter(), { endpoint: 'models', path: '/models', method: 'GET', body: undefined, rawBody: null });
    expect(prepared).toMatchObject({ url: 'https://api.anthropic.com/v1/models', method: 'GET', response: null, headers: { 'x-api-key': 'test-key' } });
  });
});

describe('cloud A', () => {
  const deployments = [
    { deployment_id: 'dep-4o', alias: 'gpt-4o', api_version: '2024-06-01', is_default: false },
    { deployment_id: 'dep-mini', alias: 'gpt-4o-mini', api_version: '2024-10-21', is_default: true },
  ];

  it('builds the resource deployment URL and converts the token to api-key', async () => {
    const prepared = await prepare(cloudaAdapter(), { body: CHAT, options: { resource_name: 'myres', deployment_id: 'dep1', api_version: '2024-02-01' } });
    expect(prepared.url).toBe('https://myres.openai.azure.com/openai/deployments/dep1/chat/completions?api-version=2024-02-01');
    expect(prepared.headers).toEqual({ 'api-key': 'test-key' });
  });

  it('picks the deployment whose alias is the request\'s model, else the default one', async () => {
    const options = { resource_name: 'r', deployments };
    expect((await prepare(cloudaAdapter(), { body: { ...CHAT, model: 'gpt-4o' }, options })).url).toBe('https://r.openai.azure.com/openai/deployments/dep-4o/chat/completions?api-version=2024-06-01');
    expect((await prepare(cloudaAdapter(), { body: { ...CHAT, model: 'other' }, options })).url).toBe('https://r.openai.azure.com/openai/deployments/dep-mini/chat/completions?api-version=2024-10-21');
    const noDefault = { resource_name: 'r', deployments: [deployments[0]] };
    expect(await refusal(cloudaAdapter(), { body: { ...CHAT, model: 'other' }, options: noDefault })).toMatchObject({ code: 'invalid_provider_option', param: 'deployments' });
    expect(cloudaAdapter().readsBody('chat', { options, strictVendorCompliance: false })).toBe(true);
    expect(cloudaAdapter().readsBody('chat', { options: { resource_name: 'r', deployment_id: 'd' }, strictVendorCompliance: false })).toBe(false);
  });

  it('takes the clouda_* set (the x-gateway-clouda-* headers), and a directory token as Bearer', async () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';
    const prepared = await prepare(cloudaAdapter(), { body: CHAT, apiKey: jwt, options: { clouda_resource_name: 'res2', clouda_deployment_id: 'd2', clouda_api_version: '2025-01-01-preview' } });
    expect(prepared.url).toBe('https://res2.openai.azure.com/openai/deployments/d2/chat/completions?api-version=2025-01-01-preview');
    expect(prepared.headers).toEqual({ authorization: `Bearer ${jwt}` });
    // clouda_model_name names the deployment when no id is given; the default version fills in.
    expect((await prepare(cloudaAdapter(), { body: CHAT, options: { clouda_resource_name: 'res2', clouda_model_name: 'gpt-4o' } })).url)
      .toBe(`https://res2.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=${DEFAULT_API_VERSION}`);
  });

  it('builds serverless and managed model-endpoint URLs with Bearer auth', async () => {
    const serverless = await prepare(cloudaAdapter(), { body: CHAT, options: { clouda_deployment_type: 'serverless', clouda_deployment_name: 'Llama-3', clouda_region: 'eastus2', clouda_api_version: '2024-05-01-preview' } });
    expect(serverless.url).toBe('https://llama-3.eastus2.models.ai.azure.com/chat/completions?api-version=2024-05-01-preview');
    expect(serverless.headers).toEqual({ authorization: 'Bearer test-key' });
    const managed = await prepare(cloudaAdapter(), { body: CHAT, options: { clouda_deployment_type: 'managed', clouda_endpoint_name: 'my-ep', clouda_region: 'westus', clouda_deployment_name: 'blue' } });
    expect(managed.url).toBe('https://my-ep.westus.inference.ml.azure.com/score/chat/completions');
    expect(managed.headers).toEqual({ authorization: 'Bearer test-key', 'azureml-model-deployment': 'blue' });
    expect((await refusal(cloudaAdapter(), { body: CHAT, options: { clouda_deployment_type: 'managed', clouda_endpoint_name: 'e' } }))?.param).toBe('clouda_region');
  });

  it('refuses settings that would change the host name, and missing ones, with codes', async () => {
    expect(await refusal(cloudaAdapter(), { body: CHAT, options: { resource_name: 'evil.example.com/x?', deployment_id: 'd' } })).toMatchObject({ code: 'invalid_provider_option', param: 'resource_name' });
    expect(await refusal(cloudaAdapter(), { body: CHAT, options: { deployment_id: 'd' } })).toMatchObject({ code: 'missing_provider_option', param: 'resource_name' });
    expect(await refusal(cloudaAdapter(), { body: CHAT, options: { resource_name: 'r' } })).toMatchObject({ code: 'missing_provider_option', param: 'deployment_id' });
    expect(await refusal(cloudaAdapter(), { endpoint: 'models', path: '/models', method: 'GET', options: { clouda_deployment_type: 'other', clouda_region: 'x' } })).toMatchObject({ code: 'invalid_provider_option' });
    expect(await refusal(cloudaAdapter(), { endpoint: 'audio', path: '/audio/speech', options: { clouda_deployment_type: 'serverless', clouda_deployment_name: 'x', clouda_region: 'y' } })).toMatchObject({ code: 'endpoint_not_supported' });
  });

  it('puts deployments under custom_host and api-version on pass-through paths', async () => {
    const prepared = await prepare(cloudaAdapter(), { endpoint: 'passthrough', path: '/files?purpose=fine-tune', method: 'GET', customHost: 'http://127.0.0.1:9/openai', options: { api_version: '2024-06-01' } });
    expect(prepared.url).toBe('http://127.0.0.1:9/openai/files?purpose=fine-tune&api-version=2024-06-01');
  });
});

describe('cloud B', () => {
  it('builds regional generateContent URLs, and the global root', async () => {
    const options = { cloudb_region: 'europe-west4', cloudb_project_id: 'proj' };
    expect((await prepare(cloudbAdapter(), { body: CHAT, options })).url).toBe('https://europe-west4-aiplatform.googleapis.com/v1/projects/proj/locations/europe-west4/publishers/google/models/gpt-x:generateContent');
    expect((await prepare(cloudbAdapter(), { body: { ...CHAT, stream: true }, options })).url).toBe('https://europe-west4-aiplatform.googleapis.com/v1/projects/proj/locations/europe-west4/publishers/google/models/gpt-x:streamGenerateContent?alt=sse');
    expect((await prepare(cloudbAdapter(), { body: CHAT, options: { cloudb_region: 'global', cloudb_project_id: 'p' } })).url).toBe('https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google/models/gpt-x:generateContent');
  });

  it('maps embeddings to :predict and refuses what it has no endpoint for', async () => {
    const prepared = await prepare(cloudbAdapter(), { endpoint: 'embeddings', path: '/embeddings', body: { model: 'emb', input: ['a', 'b'], dimensions: 4 }, options: { cloudb_region: 'us-central1', cloudb_project_id: 'p' } });
    expect(prepared.url).toMatch(/\/models\/emb:predict$/);
    expect(JSON.parse(prepared.body!.toString())).toEqual({ instances: [{ content: 'a' }, { content: 'b' }], parameters: { outputDimensionality: 4 } });
    expect(prepared.response?.json?.({ predictions: [{ embeddings: { values: [1, 2], statistics: { token_count: 3 } } }] })).toEqual({
      object: 'list', data: [{ object: 'embedding', index: 0, embedding: [1, 2] }], model: 'emb', usage: { prompt_tokens: 3, total_tokens: 3 },
    });
    for (const endpoint of ['completions', 'audio', 'images', 'models'] as const) {
      expect((await refusal(cloudbAdapter(), { endpoint, path: PATHS[endpoint], options: { cloudb_region: 'r' } }))?.code).toBe('endpoint_not_supported');
    }
  });

  it('needs a region (or custom host), a project and a credential', async () => {
    expect((await refusal(cloudbAdapter(), { body: CHAT, options: { cloudb_project_id: 'p' } }))?.param).toBe('cloudb_region');
    expect((await refusal(cloudbAdapter(), { body: CHAT, options: { cloudb_region: 'us-central1' } }))?.param).toBe('cloudb_project_id');
    expect((await refusal(cloudbAdapter(), { body: CHAT, apiKey: null, options: { cloudb_region: 'us-central1', cloudb_project_id: 'p' } }))?.code).toBe('missing_provider_credentials');
    expect(await refusal(cloudbAdapter(), { body: CHAT, options: { cloudb_region: 'us-central1', cloudb_service_account_json: { client_email: 'a@b' } } })).toMatchObject({ code: 'invalid_provider_option', param: 'cloudb_service_account_json' });
    expect((await refusal(cloudbAdapter(), { body: CHAT, options: { cloudb_region: 'evil.example/', cloudb_project_id: 'p' } }))?.code).toBe('invalid_provider_option');
  });
});

describe('cloud C', () => {
  const keys = { cloudc_access_key_id: 'AKIAEXAMPLE', cloudc_secret_access_key: 'secret', cloudc_region: 'eu-central-1' };

  it('signs converse requests to the regional runtime endpoint, the model id encoded', async () => {
    const prepared = await prepare(cloudcAdapter(() => new Date('2025-01-02T03:04:05Z')), { body: { ...CHAT, model: 'vendorx.model-v1:0' }, apiKey: null, options: keys });
    expect(prepared.url).toBe('https://bedrock-runtime.eu-central-1.amazonaws.com/model/vendorx.model-v1%3A0/converse');
    expect(prepared.headers['x-amz-date']).toBe('20250102T030405Z');
    expect(prepared.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE\/20250102\/eu-central-1\/bedrock\/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=[0-9a-f]{64}$/);
    expect((await prepare(cloudcAdapter(), { body: { ...CHAT, stream: true }, apiKey: null, options: keys })).headers.accept).toBe('application/vnd.amazon.eventstream');
  });

  it('sends a plain key as the service\'s bearer API key', async () => {
    const prepared = await prepare(cloudcAdapter(), { body: CHAT, options: { cloudc_region: 'us-east-1' } });
    expect(prepared.headers.authorization).toBe('Bearer test-key');
  });

  it('needs both keys and a region, and has no completions, embeddings, audio, images or models', async () => {
    expect((await refusal(cloudcAdapter(), { body: CHAT, options: { cloudc_access_key_id: 'a', cloudc_region: 'us-east-1' } }))?.param).toBe('cloudc_secret_access_key');
    expect((await refusal(cloudcAdapter(), { body: CHAT, apiKey: null, options: { cloudc_access_key_id: 'a', cloudc_secret_access_key: 'b' } }))?.param).toBe('cloudc_region');
    expect((await refusal(cloudcAdapter(), { body: CHAT, apiKey: null, options: {} }))?.code).toBe('missing_provider_credentials');
    for (const endpoint of ['completions', 'embeddings', 'audio', 'images', 'models'] as const) {
      expect((await refusal(cloudcAdapter(), { endpoint, path: PATHS[endpoint], options: keys }))?.code).toBe('endpoint_not_supported');
    }
  });
});
