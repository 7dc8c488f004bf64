// OpenTelemetry traces end to end: the gateway `serve` builds, with tracing started as serve starts
// it, exports to a test collector what the real OTLP/HTTP exporter sends; the client's traceparent
// is the parent of the request's server span, each upstream attempt is a client span under it, and
// the provider receives the attempt's traceparent. Without the setting, the SDK is never loaded.
import { type AddressInfo, createServer } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSetup } from '../../runtime/cli/serve.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { type RunningGateway, startGateway } from '../../runtime/server/start.ts';
import { startTracing, tracingSettingsFromEnv } from '../../runtime/telemetry/tracing.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { MESSAGES_MOCK_KEY, startMessagesMock } from '../mocks/messages/index.ts';
import type { MockServer } from '../mocks/http/mock-server.ts';
import { CLOUDB_PROJECT, CLOUDB_REGION, type CloudbMock, startCloudbMock } from '../mocks/cloudb/index.ts';
import { CLOUDC_ACCESS_KEY_ID, CLOUDC_REGION, CLOUDC_SECRET_ACCESS_KEY, startCloudcMock } from '../mocks/cloudc/index.ts';
import { type OtlpReceiver, startOtlpReceiver } from './otlp-receiver.ts';
import { until } from '../jobs/harness.ts';

const ADMIN = 'gw_tracing-e2e-admin-key-0123456789abcdefgh';
const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

describe('tracing', () => {
  let receiver: OtlpReceiver;
  let mock: VendorMock;
  let messages: MockServer;
  let cloudb: CloudbMock;
  let cloudc: MockServer;
  let dir: string;
  let gateway: RunningGateway | null = null;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    mock = await startVendorMock({ label: 'traced' });
    messages = await startMessagesMock({ label: 'traced-messages' });
    cloudb = await startCloudbMock({ label: 'traced-cloudb' });
    cloudc = await startCloudcMock({ label: 'traced-cloudc' });
    dir = await mkdtemp(join(tmpdir(), 'gateway-tracing-'));
    await mkdir(join(dir, 'configs'));
    await writeFile(join(dir, 'configs', 'fallback.json'), JSON.stringify({
      strategy: { mode: 'fallback' },
      targets: [{ provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: 'http://127.0.0.1:9/v1' }, { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL }],
    }));
    await writeFile(join(dir, 'configs', 'messages.json'), JSON.stringify({ provider: 'anthropic', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL }));
    await writeFile(join(dir, 'configs', 'cloudb.json'), JSON.stringify({ provider: 'cloudb', custom_host: `${cloudb.url}/v1`, cloudb_region: CLOUDB_REGION, cloudb_service_account_json: cloudb.serviceAccount }));
    await writeFile(join(dir, 'configs', 'cloudc.json'), JSON.stringify({ provider: 'cloudc', custom_host: cloudc.url, cloudc_region: CLOUDC_REGION, cloudc_access_key_id: CLOUDC_ACCESS_KEY_ID, cloudc_secret_access_key: CLOUDC_SECRET_ACCESS_KEY }));
  });
  afterAll(async () => {
    await gateway?.close();
    await mock?.close();
    await messages?.close();
    await cloudb?.close();
    await cloudc?.close();
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('exports a server span per request and a client span per attempt, with GenAI attributes and W3C context in and out', async () => {
    const settings = tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'gateway-under-test' });
    gateway = await startGateway({ port: 0, dataDir: join(dir, 'data'), configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger: silentLogger, setup: serveSetup, tracing: await startTracing(settings, silentLogger) });
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'fallback', 'x-gateway-trace-id': 'gw-trace-1', 'content-type': 'application/json', traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'trace me' }] }),
    });
    const answer = (await res.json()) as { model: string; usage: { prompt_tokens: number; completion_tokens: number } };
    expect(res.status).toBe(200);
    await gateway.close();
    gateway = null;

    expect(receiver.contentTypes[0]).toMatch(/^application\/json/);
    const server = receiver.spans.find((s) => s.kind === 2 && s.attributes['gateway.trace_id'] === 'gw-trace-1');
    expect(server).toBeDefined();
    expect(server!).toMatchObject({ traceId: CLIENT_TRACE, parentSpanId: CLIENT_SPAN, serviceName: 'gateway-under-test' });
    expect(server!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'vendor', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.response.model': answer.model,
      'gen_ai.usage.input_tokens': answer.usage.prompt_tokens, 'gen_ai.usage.output_tokens': answer.usage.completion_tokens,
      'http.response.status_code': 200, 'gateway.target': 'config.targets[1]',
    });
    const attempts = receiver.spans.filter((s) => s.kind === 3 && s.parentSpanId === server!.spanId);
    expect(attempts.map((s) => s.attributes['gateway.target'])).toEqual(['config.targets[0]', 'config.targets[1]']);
    expect(attempts.map((s) => s.attributes['gen_ai.operation.name'])).toEqual(['chat', 'chat']);
    expect(attempts[0].status.code).toBe(2);
    expect(attempts.every((s) => s.traceId === CLIENT_TRACE)).toBe(true);
    // The provider saw the second attempt's own context, not the client's.
    const sent = mock.requests.find((r) => r.path === '/v1/chat/completions');
    expect(sent?.headers.traceparent).toBe(`00-${CLIENT_TRACE}-${attempts[1].spanId}-01`);
  });

  it('exports the input the provider read from and wrote to its prompt cache as gen_ai.usage.cache_read.input_tokens and cache_creation.input_tokens', async () => {
    const settings = tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const traced = await startGateway({ port: 0, dataDir: join(dir, 'data-cache'), configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger: silentLogger, setup: serveSetup, tracing: await startTracing(settings, silentLogger) });
    const ask = async (trace: string): Promise<{ usage: { prompt_tokens: number; prompt_tokens_details?: { cached_tokens: number; cache_creation_tokens?: number } } }> => (await fetch(`${traced.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'messages', 'x-gateway-trace-id': trace, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-mock-1', messages: [{ role: 'system', content: [{ type: 'text', text: 'Answer in one short line. '.repeat(30), cache_control: { type: 'ephemeral' } }] }, { role: 'user', content: 'hi' }] }),
    })).json() as never;
    const first = await ask('cache-write');
    const second = await ask('cache-read');
    await traced.close();
    const cached = second.usage.prompt_tokens_details?.cached_tokens ?? 0;
    expect(cached).toBeGreaterThan(0);
    const span = (trace: string) => receiver.spans.find((s) => s.kind === 2 && s.attributes['gateway.trace_id'] === trace)!;
    expect(span('cache-read').attributes).toMatchObject({ 'gen_ai.usage.input_tokens': second.usage.prompt_tokens, 'gen_ai.usage.cache_read.input_tokens': cached });
    expect(span('cache-write').attributes['gen_ai.usage.cache_read.input_tokens']).toBeUndefined();
    const written = first.usage.prompt_tokens_details?.cache_creation_tokens ?? 0;
    expect(written).toBeGreaterThan(0);
    expect(span('cache-write').attributes['gen_ai.usage.cache_creation.input_tokens']).toBe(written);
    expect(span('cache-read').attributes['gen_ai.usage.cache_creation.input_tokens']).toBeUndefined();
  });

  it('names the messages API\'s create call through the pass-through a chat, on its request\'s span and its attempt\'s; its token count is no GenAI operation', async () => {
    const settings = tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const traced = await startGateway({ port: 0, dataDir: join(dir, 'data-messages'), configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger: silentLogger, setup: serveSetup, tracing: await startTracing(settings, silentLogger) });
    const send = (path: string, trace: string): Promise<Response> => fetch(`${traced.url}/v1${path}`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'messages', 'x-gateway-trace-id': trace, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-mock-1', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const created = await send('/messages?beta=true', 'messages-create');
    const answer = (await created.json()) as { usage: { input_tokens: number; output_tokens: number } };
    expect(created.status).toBe(200);
    const counted = await send('/messages/count_tokens', 'messages-count');
    await counted.arrayBuffer();
    await traced.close();
    const server = (trace: string) => receiver.spans.find((s) => s.kind === 2 && s.attributes['gateway.trace_id'] === trace)!;
    const attempt = (trace: string) => receiver.spans.find((s) => s.kind === 3 && s.parentSpanId === server(trace).spanId)!;
    expect(server('messages-create').attributes).toMatchObject({
      'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'anthropic', 'gen_ai.usage.input_tokens': answer.usage.input_tokens, 'gen_ai.usage.output_tokens': answer.usage.output_tokens,
    });
    expect(attempt('messages-create').attributes['gen_ai.operation.name']).toBe('chat');
    expect(server('messages-count').attributes['gen_ai.operation.name']).toBeUndefined();
    expect(attempt('messages-count').attributes['gen_ai.operation.name']).toBeUndefined();
  });

  it('names cloud B\'s :predict on a text embedding model through the pass-through embeddings, with its summed token counts', async () => {
    const settings = tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const traced = await startGateway({ port: 0, dataDir: join(dir, 'data-predict'), configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger: silentLogger, setup: serveSetup, tracing: await startTracing(settings, silentLogger) });
    const res = await fetch(`${traced.url}/v1/projects/${CLOUDB_PROJECT}/locations/${CLOUDB_REGION}/publishers/google/models/text-embedding-mock:predict`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'cloudb', 'x-gateway-trace-id': 'cloudb-predict', 'content-type': 'application/json' },
      body: JSON.stringify({ instances: [{ content: 'embed these four words' }] }),
    });
    const answer = (await res.json()) as { predictions: Array<{ embeddings: { statistics: { token_count: number } } }> };
    await traced.close();
    const server = receiver.spans.find((s) => s.kind === 2 && s.attributes['gateway.trace_id'] === 'cloudb-predict')!;
    const attempt = receiver.spans.find((s) => s.kind === 3 && s.parentSpanId === server.spanId)!;
    expect(server.attributes).toMatchObject({ 'gen_ai.operation.name': 'embeddings', 'gen_ai.provider.name': 'cloudb', 'gen_ai.usage.input_tokens': answer.predictions[0].embeddings.statistics.token_count });
    expect(attempt.attributes['gen_ai.operation.name']).toBe('embeddings');
  });

  it('names another model\'s invoke through cloud C\'s pass-through by its vendor\'s format: Nova\'s a chat, Llama\'s a text completion, Mistral\'s as its body\'s form says, one not read none', async () => {
    const settings = tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const traced = await startGateway({ port: 0, dataDir: join(dir, 'data-invoke'), configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger: silentLogger, setup: serveSetup, tracing: await startTracing(settings, silentLogger) });
    const invoke = (model: string, trace: string, body: unknown) => fetch(`${traced.url}/v1/model/${encodeURIComponent(model)}/invoke`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'cloudc', 'x-gateway-trace-id': trace, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((res) => res.arrayBuffer());
    await invoke('amazon.nova-lite-v1:0', 'invoke-nova', { messages: [{ role: 'user', content: [{ text: 'hi' }] }] });
    await invoke('meta.llama3-8b-instruct-v1:0', 'invoke-llama', { prompt: 'hi' });
    await invoke('cohere.command-r-v1:0', 'invoke-cohere', { message: 'hi' });
    await invoke('mistral.mistral-large-2402-v1:0', 'invoke-mistral-chat', { messages: [{ role: 'user', content: 'hi' }] });
    await invoke('mistral.mistral-large-2402-v1:0', 'invoke-mistral-prompt', { prompt: '<s>[INST] hi [/INST]' });
    await traced.close();
    const server = (trace: string) => receiver.spans.find((s) => s.kind === 2 && s.attributes['gateway.trace_id'] === trace)!;
    const attempt = (trace: string) => receiver.spans.find((s) => s.kind === 3 && s.parentSpanId === server(trace).spanId)!;
    expect(server('invoke-nova').attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'cloudc', 'gen_ai.request.model': 'amazon.nova-lite-v1:0' });
    expect(server('invoke-nova').attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(attempt('invoke-nova').attributes['gen_ai.operation.name']).toBe('chat');
    expect(server('invoke-llama').attributes['gen_ai.operation.name']).toBe('text_completion');
    expect(attempt('invoke-llama').attributes['gen_ai.operation.name']).toBe('text_completion');
    expect(server('invoke-cohere').attributes['gen_ai.operation.name']).toBeUndefined();
    expect(attempt('invoke-mistral-chat').attributes['gen_ai.operation.name']).toBe('chat');
    expect(attempt('invoke-mistral-prompt').attributes['gen_ai.operation.name']).toBe('text_completion');
  });

  it('exports a client\'s model name with a lone surrogate half as U+FFFD, so the collector takes the batch it is in', async () => {
    const settings = tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const traced = await startGateway({ port: 0, dataDir: join(dir, 'data-utf8'), configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger: silentLogger, setup: serveSetup, tracing: await startTracing(settings, silentLogger) });
    try {
      const send = (traceId: string, model: string) => fetch(`${traced.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'fallback', 'x-gateway-trace-id': traceId, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      }).then((res) => res.arrayBuffer());
      await Promise.all([send('gw-trace-odd', 'gpt\ud800'), send('gw-trace-plain', 'gpt-4o-mini')]);
    } finally {
      await traced.close();
    }
    expect(receiver.refusedBatches).toBe(0);
    const odd = receiver.spans.find((s) => s.kind === 2 && s.attributes['gateway.trace_id'] === 'gw-trace-odd');
    expect(odd?.attributes['gen_ai.request.model']).toBe('gpt\uFFFD');
    expect(receiver.spans.some((s) => s.kind === 2 && s.attributes['gateway.trace_id'] === 'gw-trace-plain')).toBe(true);
  });

  it('logs a collector that refuses exports once when it starts and once when it takes them again', async () => {
    const events: string[] = [];
    const logger = { info: (event: string) => void events.push(event), warn: (event: string) => void events.push(event), error: (event: string) => void events.push(event) };
    const settings = tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const traced = await startGateway({ port: 0, dataDir: join(dir, 'data-refused'), configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger, setup: serveSetup, tracing: await startTracing(settings, logger) });
    const request = () => fetch(`${traced.url}/v1/models`, { headers: { 'x-gateway-api-key': ADMIN } }).then((res) => res.arrayBuffer());
    try {
      receiver.refuseWith = 400;
      // Three batches of spans (the processor exports about every second), each refused.
      for (let i = 0; i < 3; i++) {
        await request();
        await until(() => Promise.resolve(events), (seen) => seen.includes('tracing_export_failed'), 3000, 'the first refusal');
        await new Promise((r) => setTimeout(r, 1100));
      }
      expect(events.filter((e) => e.startsWith('tracing_export'))).toEqual(['tracing_export_failed']);
      receiver.refuseWith = null;
      const before = receiver.spans.length;
      await request();
      await until(() => Promise.resolve(events), (seen) => seen.includes('tracing_export_recovered'), 5000, 'the recovery');
      expect(receiver.spans.length).toBeGreaterThan(before);
      expect(events.filter((e) => e.startsWith('tracing_export'))).toEqual(['tracing_export_failed', 'tracing_export_recovered']);
    } finally {
      receiver.refuseWith = null;
      await traced.close();
    }
  });

  it('a stop gives a collector that accepts and never answers 2 s for the last spans, then goes on without them', async () => {
    const silent = createServer((socket) => socket.on('error', () => undefined));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const events: string[] = [];
    const logger = { info: (event: string) => void events.push(event), warn: (event: string) => void events.push(event), error: (event: string) => void events.push(event) };
    const settings = tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` });
    const traced = await startGateway({ port: 0, dataDir: join(dir, 'data-silent'), configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger, setup: serveSetup, tracing: await startTracing(settings, logger) });
    try {
      await fetch(`${traced.url}/v1/models`, { headers: { 'x-gateway-api-key': ADMIN } }).then((res) => res.arrayBuffer());
      const started = Date.now();
      await traced.close();
      // The exporter's own timeout is 10 s.
      expect(Date.now() - started).toBeLessThan(4000);
      expect(events).toContain('tracing_shutdown_failed');
    } finally {
      silent.close();
    }
  });

  it('reads the endpoint variables by name: a base gets /v1/traces, the traces URL wins, a value that is no http(s) URL is refused', () => {
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' })?.endpoint).toBe('http://127.0.0.1:4318/v1/traces');
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c/otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://t/x/traces' })?.endpoint).toBe('https://t/x/traces');
    expect(() => tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/^OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/);
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
  });

  it('never loads the OpenTelemetry SDK when no endpoint is set', () => {
    expect(tracingSettingsFromEnv({})).toBeNull();
    const probe = `
      const { startTracing, tracingSettingsFromEnv } = await import(${JSON.stringify(fileURLToPath(new URL('../../runtime/telemetry/tracing.ts', import.meta.url)))});
      await startTracing(tracingSettingsFromEnv({}));
      const { createRequire } = await import('node:module');
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('@opentelemetry'));
      console.log(JSON.stringify(loaded));`;
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
    expect(out.stderr).not.toMatch(/Error/);
    expect(JSON.parse(out.stdout.trim())).toEqual([]);
  });
});
