// Rate and usage limits end to end on the gateway `serve` builds: policies created through the API,
// requests sent with the official SDK against a real server and a mock provider that counts what
// it received. 429 with Retry-After and the x-ratelimit-* headers, 412 for a spent budget, group_by
// isolation, wildcard conditions, token limits charged from the answer (streams included), a
// target-level policy that fallback moves past, the usage endpoints, one alert per period.
import { edgesOf, spokenSeconds } from '../../runtime/core/audio-duration/index.ts';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSetup } from '../../runtime/cli/serve.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { type RunningGateway, startGateway } from '../../runtime/server/start.ts';
import { checkResponse } from '../api/contract.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { startMessagesMock, MESSAGES_MOCK_KEY } from '../mocks/messages/index.ts';
import { startCloudbMock, CLOUDB_PROJECT, CLOUDB_REGION, type CloudbMock } from '../mocks/cloudb/index.ts';
import type { MockServer } from '../mocks/http/mock-server.ts';
import { until } from '../jobs/harness.ts';
import { webSocketHandshake } from '../support/web-socket-handshake.ts';
import { connectRealtime } from '../support/realtime-client.ts';

const ADMIN = 'gw_limits-e2e-admin-key-0123456789abcdef';

describe('rate and usage limits', () => {
  let gateway: RunningGateway;
  let mock: VendorMock;
  let messages: MockServer;
  let cloudb: CloudbMock;
  let dir: string;
  let hook: Server;
  const alerts: any[] = [];
  const savedWebhook = process.env.GATEWAY_ALERT_WEBHOOK;

  beforeAll(async () => {
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        alerts.push(JSON.parse(body));
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    process.env.GATEWAY_ALERT_WEBHOOK = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/alerts`;
    mock = await startVendorMock({ label: 'limits' });
    messages = await startMessagesMock({ label: 'limits-messages' });
    cloudb = await startCloudbMock({ label: 'limits-cloudb' });
    dir = await mkdtemp(join(tmpdir(), 'gateway-limits-'));
    await mkdir(join(dir, 'configs'));
    const target = { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL };
    await writeFile(join(dir, 'configs', 'chat.json'), JSON.stringify(target));
    await writeFile(join(dir, 'configs', 'messages.json'), JSON.stringify({ provider: 'anthropic', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL }));
    await writeFile(join(dir, 'configs', 'cloudb.json'), JSON.stringify({ provider: 'cloudb', custom_host: `${cloudb.url}/v1`, cloudb_region: CLOUDB_REGION, cloudb_service_account_json: cloudb.serviceAccount }));
    await writeFile(join(dir, 'configs', 'two-models.json'), JSON.stringify({
      strategy: { mode: 'fallback' },
      targets: [{ ...target, override_params: { model: 'gpt-4o' } }, { ...target, override_params: { model: 'gpt-4o-mini' } }],
    }));
    gateway = await startGateway({ port: 0, dataDir: join(dir, 'data'), configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger: silentLogger, storePollMs: 50, setup: serveSetup });
  });
  afterAll(async () => {
    await gateway?.close();
    await mock?.close();
    await messages?.close();
    await cloudb?.close();
    await new Promise((resolve) => hook?.close(resolve));
    await rm(dir, { recursive: true, force: true });
    if (savedWebhook === undefined) delete process.env.GATEWAY_ALERT_WEBHOOK;
    else process.env.GATEWAY_ALERT_WEBHOOK = savedWebhook;
  });

  async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${gateway.url}${path}`, { method, headers: { 'x-gateway-api-key': ADMIN, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const parsed = await res.json();
    return { status: res.status, body: parsed };
  }

  /** A policy scoped by a metadata tag unique to the test, so tests do not count each other's requests. */
  async function policy(kind: 'rate-limits' | 'usage-limits', body: Record<string, unknown>): Promise<string> {
    const created = await admin('POST', `/v1/policies/${kind}`, body);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    // The routers see it within one change-feed interval.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return created.body.id as string;
  }

  function client(tag: Record<string, string>, config = 'chat'): OpenAI {
    return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: VENDOR_MOCK_KEY, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': config, 'x-gateway-metadata': JSON.stringify(tag) } });
  }

  async function send(sdk: OpenAI, model = 'gpt-4o-mini'): Promise<{ status: number; headers: Headers; error?: any }> {
    try {
      const { response } = await sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello there' }] }).withResponse();
      return { status: response.status, headers: response.headers };
    } catch (error: any) {
      return { status: error.status, headers: error.headers, error };
    }
  }

  it('a 2-rpm policy lets 2 of 5 requests through and refuses 3 with Retry-After and the vendor headers; the provider sees 2', async () => {
    await policy('rate-limits', { type: 'requests', unit: 'rpm', value: 2, conditions: [{ key: 'metadata.test', value: 'rpm' }], group_by: [{ key: 'api_key' }] });
    const before = mock.requests.length;
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await send(client({ test: 'rpm' })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 429, 429, 429]);
    expect(mock.requests.length - before).toBe(2);
    expect(results[0].headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(results[0].headers.get('x-ratelimit-remaining-requests')).toBe('1');
    expect(results[1].headers.get('x-ratelimit-remaining-requests')).toBe('0');
    const refused = results[2];
    expect(refused.error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(refused.error.error).toMatchObject({ code: 'rate_limited', type: 'rate_limit_error' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(55);
    expect(retryAfter).toBeLessThanOrEqual(61);
    expect(Number(refused.headers.get('retry-after-ms'))).toBeGreaterThan(54_000);
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+s|1m\d+s)$/);
    expect(refused.headers.get('x-gateway-trace-id')).toBeTruthy();
  });

  it('group_by keeps one counter per group, and a wildcard condition matches by prefix', async () => {
    await policy('rate-limits', { type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'metadata.team', value: 'eng-*' }], group_by: [{ key: 'metadata._user' }] });
    const a = client({ team: 'eng-core', _user: 'ada' });
    const b = client({ team: 'eng-web', _user: 'bob' });
    const other = client({ team: 'sales', _user: 'ada' });
    expect((await send(a)).status).toBe(200);
    expect((await send(a)).status).toBe(429);
    expect((await send(b)).status).toBe(200);
    expect((await send(other)).status).toBe(200);
    expect((await send(other)).status).toBe(200);
    const usage = await admin('GET', `/v1/policies/rate-limits/${(await admin('GET', '/v1/policies/rate-limits')).body.data.find((p: any) => p.conditions?.[0]?.value === 'eng-*').id}/usage`);
    expect(usage.status).toBe(200);
    expect(checkResponse('GET', '/v1/policies/rate-limits/x/usage', 200, usage.body)).not.toBeNull();
    const groups = Object.fromEntries(usage.body.data.map((g: any) => [g.group['metadata._user'], g.used]));
    expect(groups).toEqual({ ada: 1, bob: 1 });
    expect(usage.body.total).toBe(2);
    // Paged like every list, the groups in the order of their values.
    const usagePath = `/v1/policies/rate-limits/${usage.body.policy_id}/usage`;
    const second = await admin('GET', `${usagePath}?page_size=1&current_page=1`);
    expect([second.body.total, second.body.data.map((g: any) => g.group['metadata._user'])]).toEqual([2, ['bob']]);
    expect((await admin('GET', `${usagePath}?limit=1`)).body.error.code).toBe('invalid_query');
    // One group by its value; a key the policy does not group by is refused, not an empty page.
    const ada = await admin('GET', `${usagePath}?group.metadata._user=ada`);
    expect([ada.body.total, ada.body.data.map((g: any) => [g.group['metadata._user'], g.used])]).toEqual([1, [['ada', 1]]]);
    expect((await admin('GET', `${usagePath}?group.metadata._user=nobody`)).body).toMatchObject({ total: 0, data: [] });
    const wrongKey = await admin('GET', `${usagePath}?group.api_key=k1`);
    expect(wrongKey.body.error).toMatchObject({ code: 'invalid_query', param: '/group.api_key' });
    expect(wrongKey.body.error.message).toContain('groups by metadata._user');
  });

  it('a tokens rate limit is checked before and charged from the answer, streamed answers included', async () => {
    await policy('rate-limits', { type: 'tokens', unit: 'rpm', value: 5, conditions: [{ key: 'metadata.test', value: 'tpm' }], group_by: [{ key: 'api_key' }] });
    const sdk = client({ test: 'tpm' });
    const stream = await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello there' }], stream: true, stream_options: { include_usage: true } });
    for await (const chunk of stream) void chunk;
    // The stream alone used more than 5 tokens: the next request is refused before the provider sees it.
    const before = mock.requests.length;
    const refused = await send(sdk);
    expect(mock.requests.length).toBe(before);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit-tokens')).toBe('5');
    expect(refused.headers.get('x-ratelimit-remaining-tokens')).toBe('0');
  });

  it('a stream the client leaves before its end is charged what was streamed until then (an estimate), so stopping early does not dodge a budget', async () => {
    const id = await policy('usage-limits', { type: 'tokens', credit_limit: 5, conditions: [{ key: 'metadata.test', value: 'left-early' }], group_by: [{ key: 'api_key' }] });
    const sdk = client({ test: 'left-early' });
    mock.script({ path: '/v1/chat/completions', frameDelayMs: 300 });
    const leaving = new AbortController();
    const stream = await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'please say quite a number of words back to me now' }], stream: true, stream_options: { include_usage: true } }, { signal: leaving.signal });
    let read = 0;
    // The SDK ends the iteration (or throws its abort error) once the request is aborted.
    await (async () => {
      for await (const chunk of stream) {
        void chunk;
        if (++read === 2) leaving.abort();
      }
    })().catch(() => undefined);
    expect(read).toBe(2);
    // Charged once the gateway saw the client go: the next request finds the budget spent.
    const usage = await until(async () => (await admin('GET', `/v1/policies/usage-limits/${id}/usage`)).body, (body) => body.data?.[0]?.used > 0, 3000, 'the charge of the stream cut short');
    expect(usage.data[0]).toMatchObject({ exhausted: true });
    const refused = await send(sdk);
    expect(refused.status).toBe(412);
    // Its record says what was counted: an estimate of the streamed part.
    const logged = await until(async () => (await admin('GET', '/v1/logs?metadata.test=left-early&status=200')).body, (page) => page.data?.length === 1, 3000, 'the record of the stream cut short');
    expect(logged.data[0]).toMatchObject({ stream: true, usage: { estimated: true } });
    expect(logged.data[0].usage.output_tokens).toBeGreaterThan(0);
  });

  it('a request the client leaves while the provider works on it is charged its input (an estimate), so leaving before each answer does not dodge a budget', async () => {
    const id = await policy('usage-limits', { type: 'tokens', credit_limit: 5, conditions: [{ key: 'metadata.test', value: 'left-waiting' }], group_by: [{ key: 'api_key' }] });
    const sdk = client({ test: 'left-waiting' });
    mock.script({ path: '/v1/chat/completions', delayMs: 1000 });
    const leaving = new AbortController();
    const before = mock.requests.length;
    const asked = sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'please say quite a number of words back to me now' }] }, { signal: leaving.signal });
    // Left once the provider has the request.
    await until(async () => mock.requests.length, (n) => n > before, 3000, 'the request at the provider');
    leaving.abort();
    await expect(asked).rejects.toThrow();
    const usage = await until(async () => (await admin('GET', `/v1/policies/usage-limits/${id}/usage`)).body, (body) => body.data?.[0]?.used > 0, 3000, 'the charge of the request left waiting');
    expect(usage.data[0]).toMatchObject({ exhausted: true });
    expect(await send(sdk)).toMatchObject({ status: 412 });
    // Its record names where it went and what was counted: the input, estimated.
    const logged = await until(async () => (await admin('GET', '/v1/logs?metadata.test=left-waiting&status=499')).body, (page) => page.data?.length === 1, 3000, 'the record of the request left waiting');
    expect(logged.data[0]).toMatchObject({ status: 499, config_id: 'chat', target: 'config', provider: 'vendor', model_requested: 'gpt-4o-mini', retries: 0, stream: false, usage: { output_tokens: 0, estimated: true } });
    expect(logged.data[0].usage.input_tokens).toBeGreaterThan(5);
  });

  it('a request the client leaves while its retry waits, after the provider answered an error, is charged nothing', async () => {
    const id = await policy('usage-limits', { type: 'tokens', credit_limit: 5, conditions: [{ key: 'metadata.test', value: 'left-retrying' }], group_by: [{ key: 'api_key' }] });
    const config = JSON.stringify({ provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL, retry: { attempts: 2, on_status_codes: [503], use_retry_after_headers: true } });
    const sdk = client({ test: 'left-retrying' }, config);
    mock.script({ path: '/v1/chat/completions', status: 503, retryAfterMs: 5000 });
    const leaving = new AbortController();
    const before = mock.requests.length;
    const asked = sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'please say quite a number of words back to me now' }] }, { signal: leaving.signal });
    await until(async () => mock.requests.length, (n) => n > before, 3000, 'the first try at the provider');
    await new Promise((resolve) => setTimeout(resolve, 100));
    leaving.abort();
    await expect(asked).rejects.toThrow();
    const logged = await until(async () => (await admin('GET', '/v1/logs?metadata.test=left-retrying&status=499')).body, (page) => page.data?.length === 1, 3000, 'the record of the request left retrying');
    // The first try was answered (503), and the client left during the wait before the second.
    expect(logged.data[0]).toMatchObject({ status: 499, provider: 'vendor', retries: 0, usage: null, cost_usd: null });
    expect(mock.requests.length).toBe(before + 1);
    const usage = (await admin('GET', `/v1/policies/usage-limits/${id}/usage`)).body;
    expect(usage.data[0]?.used ?? 0).toBe(0);
  });

  it('a request the client leaves during a retry is logged with the retries spent and charged its input', async () => {
    const config = JSON.stringify({ provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL, retry: { attempts: 2, on_status_codes: [503], use_retry_after_headers: true } });
    const sdk = client({ test: 'left-retried' }, config);
    mock.script({ path: '/v1/chat/completions', status: 503, retryAfterMs: 20 }, { path: '/v1/chat/completions', delayMs: 1000 });
    const leaving = new AbortController();
    const before = mock.requests.length;
    const asked = sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'please say quite a number of words back to me now' }] }, { signal: leaving.signal });
    await until(async () => mock.requests.length, (n) => n >= before + 2, 3000, 'the retry at the provider');
    leaving.abort();
    await expect(asked).rejects.toThrow();
    const logged = await until(async () => (await admin('GET', '/v1/logs?metadata.test=left-retried&status=499')).body, (page) => page.data?.length === 1, 3000, 'the record of the request left during its retry');
    expect(logged.data[0]).toMatchObject({ status: 499, provider: 'vendor', retries: 1, usage: { output_tokens: 0, estimated: true } });
  });

  it('a Responses API call forwarded to the provider is metered and charged like a chat, so it is no way around a budget', async () => {
    const id = await policy('usage-limits', { type: 'tokens', credit_limit: 5, conditions: [{ key: 'metadata.test', value: 'responses' }], group_by: [{ key: 'api_key' }] });
    const sdk = client({ test: 'responses' });
    const first = await sdk.responses.create({ model: 'gpt-4o-mini', input: 'hello there, how are you' });
    expect(first.usage!.total_tokens).toBeGreaterThan(5);
    const usage = await until(async () => (await admin('GET', `/v1/policies/usage-limits/${id}/usage`)).body, (body) => body.data?.[0]?.used > 0, 3000, 'the charge of the Responses call');
    expect(usage.data[0]).toMatchObject({ used: first.usage!.total_tokens, exhausted: true });
    await expect(sdk.responses.create({ model: 'gpt-4o-mini', input: 'and again' })).rejects.toMatchObject({ status: 412 });
    const logged = await until(async () => (await admin('GET', '/v1/logs?metadata.test=responses&status=200')).body, (page) => page.data?.length === 1, 3000, 'the record of the Responses call');
    expect(logged.data[0]).toMatchObject({ path: '/v1/responses', usage: { total_tokens: first.usage!.total_tokens, estimated: false } });
    expect(logged.data[0].cost_usd).toBeGreaterThan(0);
  });

  it('the messages API\'s own /v1/messages through the pass-through is charged the tokens it reports, streamed or not, so its SDK is no way around a budget', async () => {
    const id = await policy('usage-limits', { type: 'tokens', credit_limit: 5, conditions: [{ key: 'metadata.test', value: 'messages' }], group_by: [{ key: 'api_key' }] });
    const call = (stream: boolean) => fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'messages', 'x-gateway-metadata': JSON.stringify({ test: 'messages' }), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-sonnet-4-0', max_tokens: 32, stream, messages: [{ role: 'user', content: 'hello there, how are you' }] }),
    });
    const first = await call(true);
    expect(first.status).toBe(200);
    expect(await first.text()).toContain('event: message_stop');
    const usage = await until(async () => (await admin('GET', `/v1/policies/usage-limits/${id}/usage`)).body, (body) => body.data?.[0]?.used > 0, 3000, 'the charge of the messages call');
    expect(usage.data[0]).toMatchObject({ exhausted: true });
    expect((await call(false)).status).toBe(412);
  });

  it('cloud B\'s own generateContent through the pass-through is charged the tokens it reports, and a policy on model matches the model its path names', async () => {
    const id = await policy('usage-limits', { type: 'tokens', credit_limit: 5, conditions: [{ key: 'metadata.test', value: 'generate-content' }], group_by: [{ key: 'api_key' }] });
    await policy('rate-limits', { type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'model', value: 'gemini-limited' }, { key: 'metadata.test', value: 'generate-content-model' }] });
    const call = (test: string, model: string, verb: string) => fetch(`${gateway.url}/v1/projects/${CLOUDB_PROJECT}/locations/${CLOUDB_REGION}/publishers/google/models/${model}:${verb}`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'cloudb', 'x-gateway-metadata': JSON.stringify({ test }), 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hello there, how are you' }] }] }),
    });
    const first = await call('generate-content', 'gemini-2.0-flash', 'streamGenerateContent?alt=sse');
    expect(first.status).toBe(200);
    expect(await first.text()).toContain('finishReason');
    const usage = await until(async () => (await admin('GET', `/v1/policies/usage-limits/${id}/usage`)).body, (body) => body.data?.[0]?.used > 0, 3000, 'the charge of the generateContent call');
    expect(usage.data[0]).toMatchObject({ exhausted: true });
    expect((await call('generate-content', 'gemini-2.0-flash', 'generateContent')).status).toBe(412);

    const statuses = [];
    for (const model of ['gemini-limited', 'gemini-limited', 'gemini-other']) {
      const res = await call('generate-content-model', model, 'generateContent');
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 429, 200]);
  });

  it('token-billed transcriptions and images are charged the tokens they report, so they are no way around a budget either', async () => {
    const id = await policy('usage-limits', { type: 'tokens', credit_limit: 5, conditions: [{ key: 'metadata.test', value: 'uploads' }], group_by: [{ key: 'api_key' }] });
    const sdk = client({ test: 'uploads' });
    const clip = () => toFile(Buffer.alloc(32_000, 1), 'clip.wav');
    // Billed by its length, whisper reports no tokens: a tokens budget is charged nothing for it.
    await sdk.audio.transcriptions.create({ model: 'whisper-1', file: await clip() });
    const heard = (await sdk.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await clip() })) as unknown as { usage: { total_tokens: number } };
    const usage = await until(async () => (await admin('GET', `/v1/policies/usage-limits/${id}/usage`)).body, (body) => body.data?.[0]?.used > 0, 3000, 'the charge of the transcription');
    expect(usage.data[0]).toMatchObject({ used: heard.usage.total_tokens, exhausted: true });
    await expect(sdk.images.generate({ model: 'gpt-image-1', prompt: 'a small boat' })).rejects.toMatchObject({ status: 412 });
    await expect(sdk.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await clip() })).rejects.toMatchObject({ status: 412 });

    const drawing = await policy('usage-limits', { type: 'cost', credit_limit: 0.01, conditions: [{ key: 'metadata.test', value: 'drawing' }], group_by: [{ key: 'api_key' }] });
    const painter = client({ test: 'drawing' });
    const image = await painter.images.generate({ model: 'gpt-image-1', prompt: 'a small boat' });
    const spent = await until(async () => (await admin('GET', `/v1/policies/usage-limits/${drawing}/usage`)).body, (body) => body.data?.[0]?.used > 0, 3000, 'the charge of the image');
    // 1,056 image tokens at $40 a million: over the cent.
    expect(spent.data[0].used).toBeCloseTo((image.usage!.input_tokens * 5 + image.usage!.output_tokens * 40) / 1e6, 12);
    await expect(painter.images.generate({ model: 'gpt-image-1', prompt: 'another boat' })).rejects.toMatchObject({ status: 412 });

    // A cost budget counts whisper's minutes.
    const listening = await policy('usage-limits', { type: 'cost', credit_limit: 0.0001, conditions: [{ key: 'metadata.test', value: 'listening' }], group_by: [{ key: 'api_key' }] });
    const listener = client({ test: 'listening' });
    const minutes = (await listener.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(Buffer.alloc(160_000, 1), 'ten-seconds.wav') })) as unknown as { usage: { seconds: number } };
    const charged = await until(async () => (await admin('GET', `/v1/policies/usage-limits/${listening}/usage`)).body, (body) => body.data?.[0]?.used > 0, 3000, 'the charge of the minutes');
    expect(charged.data[0].used).toBeCloseTo((minutes.usage.seconds / 60) * 0.006, 12);
    await expect(listener.audio.transcriptions.create({ model: 'whisper-1', file: await clip() })).rejects.toMatchObject({ status: 412 });
  });

  it('images billed per image and speech billed by its characters are charged what they cost, answered or left waiting', async () => {
    const drawing = await policy('usage-limits', { type: 'cost', credit_limit: 0.1, conditions: [{ key: 'metadata.test', value: 'per-image' }], group_by: [{ key: 'api_key' }] });
    const painter = client({ test: 'per-image' });
    await painter.images.generate({ model: 'dall-e-3', prompt: 'a small boat', quality: 'hd' });
    const spent = await until(async () => (await admin('GET', `/v1/policies/usage-limits/${drawing}/usage`)).body, (body) => body.data?.[0]?.used > 0, 3000, 'the charge of the image');
    expect(spent.data[0]).toMatchObject({ exhausted: false });
    expect(spent.data[0].used).toBeCloseTo(0.08, 12);
    await painter.images.generate({ model: 'dall-e-2', prompt: 'a small boat', n: 2, size: '256x256' });
    await until(async () => (await admin('GET', `/v1/policies/usage-limits/${drawing}/usage`)).body, (body) => body.data?.[0]?.exhausted === true, 3000, 'the budget spent by images');
    await expect(painter.images.generate({ model: 'dall-e-2', prompt: 'another boat' })).rejects.toMatchObject({ status: 412 });

    // A client that leaves while the provider draws is charged the images it asked for: they were drawn.
    const waiting = await policy('usage-limits', { type: 'cost', credit_limit: 0.05, conditions: [{ key: 'metadata.test', value: 'per-image-left' }], group_by: [{ key: 'api_key' }] });
    const leaver = client({ test: 'per-image-left' });
    mock.script({ path: '/v1/images/generations', delayMs: 1000 });
    const leaving = new AbortController();
    const before = mock.requests.length;
    const asked = leaver.images.generate({ model: 'dall-e-3', prompt: 'a slow boat', size: '1792x1024' }, { signal: leaving.signal });
    await until(async () => mock.requests.length, (n) => n > before, 3000, 'the image request at the provider');
    leaving.abort();
    await expect(asked).rejects.toThrow();
    const left = await until(async () => (await admin('GET', `/v1/policies/usage-limits/${waiting}/usage`)).body, (body) => body.data?.[0]?.used > 0, 3000, 'the charge of the image left waiting');
    expect(left.data[0]).toMatchObject({ exhausted: true });
    expect(left.data[0].used).toBeCloseTo(0.08, 12);
    const logged = await until(async () => (await admin('GET', '/v1/logs?metadata.test=per-image-left&status=499')).body, (page) => page.data?.length === 1, 3000, 'the record of the image left waiting');
    expect(logged.data[0]).toMatchObject({ status: 499, usage: { images: 1, image_size: '1792x1024', estimated: true } });

    // tts-1 at $15 a million characters: 700 characters spend a cent.
    const speaking = await policy('usage-limits', { type: 'cost', credit_limit: 0.01, conditions: [{ key: 'metadata.test', value: 'per-character' }], group_by: [{ key: 'api_key' }] });
    const speaker = client({ test: 'per-character' });
    await (await speaker.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'a'.repeat(700) })).arrayBuffer();
    const said = await until(async () => (await admin('GET', `/v1/policies/usage-limits/${speaking}/usage`)).body, (body) => body.data?.[0]?.used > 0, 3000, 'the charge of the speech');
    expect(said.data[0].used).toBeCloseTo(700 * 15 / 1e6, 12);
    await expect(speaker.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'more' })).rejects.toMatchObject({ status: 412 });

    // gpt-4o-mini-tts at $0.015 a minute of what it says, read from its answer.
    const timed = await policy('usage-limits', { type: 'cost', credit_limit: 0.001, conditions: [{ key: 'metadata.test', value: 'per-minute' }], group_by: [{ key: 'api_key' }] });
    const narrator = client({ test: 'per-minute' });
    const spoken = Buffer.from(await (await narrator.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input: 'a'.repeat(700) })).arrayBuffer());
    const minutes = await until(async () => (await admin('GET', `/v1/policies/usage-limits/${timed}/usage`)).body, (body) => body.data?.[0]?.used > 0, 3000, 'the charge of the spoken minutes');
    expect(minutes.data[0].used).toBeCloseTo((Math.round(spokenSeconds(edgesOf(spoken), 'mp3')! * 100) / 100 / 60) * 0.015, 12);
    await expect(narrator.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input: 'more' })).rejects.toMatchObject({ status: 412 });
  });

  it('a cost budget answers 412 once spent, alerts once at its threshold, and its usage endpoint says so', async () => {
    const id = await policy('usage-limits', { type: 'cost', credit_limit: 0.00001, alert_threshold: 0.000001, conditions: [{ key: 'metadata.test', value: 'budget' }], group_by: [{ key: 'api_key' }] });
    const sdk = client({ test: 'budget' });
    let last = await send(sdk);
    for (let i = 0; i < 200 && last.status === 200; i++) last = await send(sdk);
    expect(last.status).toBe(412);
    expect(last.error).toBeInstanceOf(OpenAI.APIError);
    expect(last.error.error).toMatchObject({ code: 'usage_limit_exceeded', type: 'usage_limit_error' });
    expect(last.headers.get('retry-after')).toBeNull();
    const before = mock.requests.length;
    expect((await send(sdk)).status).toBe(412);
    expect(mock.requests.length).toBe(before);
    await until(async () => alerts.filter((a) => a.policy_id === id).length, (n) => n > 0, 2000, 'the alert');
    expect(alerts.filter((a) => a.policy_id === id)).toHaveLength(1);
    expect(alerts.find((a) => a.policy_id === id)).toMatchObject({ event: 'usage_limit_alert', type: 'cost', alert_threshold: 0.000001, credit_limit: 0.00001, period: 'all' });
    const usage = await admin('GET', `/v1/policies/usage-limits/${id}/usage`);
    expect(usage.status).toBe(200);
    expect(checkResponse('GET', '/v1/policies/usage-limits/x/usage', 200, usage.body)).not.toBeNull();
    expect(usage.body.data).toHaveLength(1);
    expect(usage.body.data[0]).toMatchObject({ exhausted: true, remaining: 0 });
  });

  it('a WebSocket session (a realtime API) is counted by a requests policy, and charged the usage its responses reported by a budget or token limit', async () => {
    await policy('rate-limits', { type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'metadata.test', value: 'ws-rpm' }], group_by: [{ key: 'api_key' }] });
    // Each of the mock's responses reports 57 tokens: a second session's response takes either past 100.
    await policy('usage-limits', { type: 'tokens', credit_limit: 100, conditions: [{ key: 'metadata.test', value: 'ws-budget' }], group_by: [{ key: 'api_key' }] });
    await policy('rate-limits', { type: 'tokens', unit: 'rpm', value: 100, conditions: [{ key: 'metadata.test', value: 'ws-tokens' }], group_by: [{ key: 'api_key' }] });
    const headers = (test: string) => ({ 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'chat', 'x-gateway-metadata': JSON.stringify({ test }) });
    const open = (test: string) => webSocketHandshake(gateway.url, '/v1/realtime?model=gpt-realtime', headers(test));
    expect((await open('ws-rpm')).status).toBe(101);
    const limited = await open('ws-rpm');
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.body).error.code).toBe('rate_limited');
    for (const [test, status, code] of [['ws-budget', 412, 'usage_limit_exceeded'], ['ws-tokens', 429, 'rate_limited']] as const) {
      // Two sessions of one response each: admitted, as the first's 57 tokens are under the limit.
      for (let i = 0; i < 2; i++) {
        const session = await connectRealtime(`${gateway.url}/v1/realtime?model=gpt-realtime`, headers(test));
        session.socket.send(JSON.stringify({ type: 'response.create' }));
        await session.event('response.done');
        session.socket.close();
        await session.closed;
      }
      // Charged when each session ended: 114 tokens, and the next is refused.
      const refused = await until(() => open(test), (answer) => answer.status !== 101, 2000, `${test} refused`);
      expect(refused.status, test).toBe(status);
      expect(JSON.parse(refused.body).error.code, test).toBe(code);
    }
  });

  it('a policy on a target-level key refuses that target only, and fallback answers from the next', async () => {
    await policy('rate-limits', { type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'model', value: 'gpt-4o' }, { key: 'metadata.test', value: 'target' }], group_by: [{ key: 'model' }] });
    const sdk = client({ test: 'target' }, 'two-models');
    const first = await send(sdk);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[0]');
    const second = await send(sdk);
    expect(second.status).toBe(200);
    expect(second.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
  });

  it('a provider condition matches the provider however the config spells it (`openai` is the vendor)', async () => {
    // The configs name `openai`; the policy names the canonical `vendor`.
    await policy('rate-limits', { type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'provider', value: 'vendor' }, { key: 'metadata.test', value: 'alias' }] });
    const sdk = client({ test: 'alias' });
    expect((await send(sdk)).status).toBe(200);
    const refused = await send(sdk);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-gateway-provider')).toBe('vendor');
  });

  it('a target named by a virtual key or its slug has the key\'s provider, and the key\'s ID as virtual_key', async () => {
    const key = await admin('POST', '/v1/virtual-keys', { provider: 'OpenAI', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL, slug: 'limits-team' });
    expect(key.status, JSON.stringify(key.body)).toBe(200);
    // Keys are matched by the IDs the gateway made: a slug or a name in their place would match nothing.
    for (const value of ['limits-team', '@limits-team']) {
      const named = await admin('POST', '/v1/policies/rate-limits', { type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'virtual_key', value }] });
      expect(named.status, value).toBe(400);
      expect(named.body.error.message, value).toContain(`it names the key whose ID is "${key.body.id}"`);
    }
    await policy('rate-limits', { type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'provider', value: 'vendor' }, { key: 'metadata.test', value: 'by-key' }] });
    await policy('rate-limits', { type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'virtual_key', value: key.body.id }, { key: 'metadata.test', value: 'by-slug' }] });
    for (const [test, config] of [['by-key', { virtual_key: key.body.id }], ['by-slug', { provider: '@limits-team', retry: { attempts: 0 } }]] as const) {
      const sdk = client({ test }, JSON.stringify(config));
      expect((await send(sdk)).status, test).toBe(200);
      const refused = await send(sdk);
      expect(refused.status, test).toBe(429);
      expect(refused.headers.get('x-gateway-provider'), test).toBe('vendor');
    }
  });

  it('a policy on model counts uploads by their form\'s model field (audio transcriptions)', async () => {
    await policy('rate-limits', { type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'model', value: 'whisper-limited' }, { key: 'metadata.test', value: 'form-model' }] });
    const sdk = client({ test: 'form-model' });
    const transcribe = async (model: string) => {
      try {
        await sdk.audio.transcriptions.create({ model, file: await toFile(Buffer.from('RIFF....WAVE'), 'a.wav') });
        return 200;
      } catch (error: any) {
        return error.status as number;
      }
    };
    expect(await transcribe('whisper-limited')).toBe(200);
    expect(await transcribe('whisper-limited')).toBe(429);
    expect(await transcribe('whisper-other')).toBe(200);
  });

  it('an archived policy does nothing, and an unknown key is refused when the policy is created', async () => {
    const id = await policy('rate-limits', { type: 'requests', unit: 'rpm', value: 0, conditions: [{ key: 'metadata.test', value: 'archived' }], group_by: [{ key: 'api_key' }] });
    const sdk = client({ test: 'archived' });
    expect((await send(sdk)).status).toBe(429);
    expect((await admin('POST', `/v1/policies/rate-limits/${id}/archive`)).status).toBeLessThan(300);
    await until(() => send(sdk), (r) => r.status === 200, 2000, 'the archived policy to stop counting');
    const bad = await admin('POST', '/v1/policies/rate-limits', { type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'team', value: 'x' }], group_by: [{ key: 'api_key' }] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('conditions');
  });
});
