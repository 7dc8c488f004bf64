// Every request that reaches the server gets one record, errors and 401s included, filled by the
// server (route kind, key, status, latency, error code) and the pipeline (config, target, provider,
// retries, models, stream, usage read from the answer, streams included).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, GATEWAY_KEY, startE2E, target } from '../e2e/harness.ts';

describe('request records', () => {
  let e2e: E2E;

  beforeAll(async () => {
    e2e = await startE2E({
      mocks: 2,
      configs: { fallback: { strategy: { mode: 'fallback' }, targets: [target(0), target(1)] } },
    });
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it('records a routed chat call: trace id, metadata, config, target, provider, models, usage, key, latency', async () => {
    e2e.mocks[0].script({ path: '/v1/chat/completions', status: 503, times: 1 });
    const traceId = `trace-${randomUUID()}`;
    const client = e2e.client({ 'x-gateway-config': 'fallback', 'x-gateway-trace-id': traceId, 'x-gateway-metadata': JSON.stringify({ team: 'search' }) });
    const answer = await client.chat.completions.create({ model: 'vendor-chat-1', messages: [{ role: 'user', content: 'hello there' }] });
    const record = await e2e.recordOf(traceId);
    expect(record).toMatchObject({
      traceId, method: 'POST', path: '/v1/chat/completions', routeKind: 'inference', operationId: 'createChatCompletion', source: 'http',
      status: 200, errorCode: null, configId: 'fallback', targetPath: 'config.targets[1]', provider: 'vendor',
      modelRequested: 'vendor-chat-1', modelAnswered: answer.model, retries: 0, stream: false, metadata: { team: 'search' },
      usage: { inputTokens: answer.usage!.prompt_tokens, outputTokens: answer.usage!.completion_tokens, totalTokens: answer.usage!.total_tokens, estimated: false },
    });
    expect(record.apiKeyId).toMatch(/\S/);
    expect(record.latencyMs).toBeGreaterThan(0);
    expect(record.ttfbMs).toBeGreaterThan(0);
    expect(record.ttfbMs!).toBeLessThanOrEqual(record.latencyMs);
    expect(JSON.stringify(record)).not.toContain(GATEWAY_KEY);
  });

  it('reads the usage and model of an answer too long to keep whole (a large embeddings list) from its edges', async () => {
    const traceId = `trace-${randomUUID()}`;
    // ~7.8 MB of JSON on the wire (floats: the SDK would ask for base64 otherwise).
    const input = Array.from({ length: 120 }, (_, i) => `passage number ${i} of the corpus`);
    const answer = await e2e.client({ 'x-gateway-config': 'fallback', 'x-gateway-trace-id': traceId }).embeddings.create({ model: 'text-embedding-3-small', input, dimensions: 3072, encoding_format: 'float' });
    expect(answer.data).toHaveLength(120);
    const record = await e2e.recordOf(traceId);
    expect(record).toMatchObject({ modelAnswered: 'text-embedding-3-small', usage: { inputTokens: answer.usage.prompt_tokens, totalTokens: answer.usage.total_tokens, estimated: false } });
    expect(record.costUsd).toBeCloseTo(answer.usage.prompt_tokens * 0.02 / 1e6, 12);
  });

  it('reads usage from the final chunk of a stream, and estimates it (marked) when the stream reports none', async () => {
    const client = (traceId: string) => e2e.client({ 'x-gateway-config': 'fallback', 'x-gateway-trace-id': traceId });
    const withUsage = `trace-${randomUUID()}`;
    let reported: { prompt_tokens: number; completion_tokens: number } | null = null;
    const stream = await client(withUsage).chat.completions.create({ model: 'vendor-chat-1', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'count to five' }] });
    for await (const chunk of stream) if (chunk.usage) reported = chunk.usage;
    expect(reported).not.toBeNull();
    expect(await e2e.recordOf(withUsage)).toMatchObject({ stream: true, status: 200, usage: { inputTokens: reported!.prompt_tokens, outputTokens: reported!.completion_tokens, estimated: false } });

    const without = `trace-${randomUUID()}`;
    let text = '';
    const plain = await client(without).chat.completions.create({ model: 'vendor-chat-1', stream: true, messages: [{ role: 'user', content: 'count to five' }] });
    for await (const chunk of plain) text += chunk.choices[0]?.delta?.content ?? '';
    const record = await e2e.recordOf(without);
    expect(record.usage).toMatchObject({ estimated: true, outputTokens: Math.ceil(Buffer.byteLength(text) / 4) });
    // The messages' text and framing (4 a message), not the request's whole JSON text.
    expect(record.usage!.inputTokens).toBe(4 + Math.ceil('count to five'.length / 4));
  });

  it('records a 401 without a key id, a 404 as unmatched, and a 400 with its error code', async () => {
    const unauthorised = await fetch(`${e2e.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'x-gateway-api-key': 'wrong', 'x-gateway-trace-id': 'trace-401' }, body: '{}' });
    expect(unauthorised.status).toBe(401);
    expect(await e2e.recordOf('trace-401')).toMatchObject({ status: 401, errorCode: 'invalid_gateway_api_key', apiKeyId: null, routeKind: 'inference' });

    const missing = await e2e.fetch('/no/such/thing', { method: 'GET', headers: { 'x-gateway-trace-id': 'trace-404' } });
    expect(missing.status).toBe(404);
    expect(await e2e.recordOf('trace-404')).toMatchObject({ status: 404, errorCode: 'route_not_found', routeKind: 'unmatched', operationId: null, apiKeyId: null });

    const invalid = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-trace-id': 'trace-400', 'x-gateway-config': '{"strategy":' }, body: '{}' });
    expect(invalid.status).toBe(400);
    const record = await e2e.recordOf('trace-400');
    expect(record).toMatchObject({ status: 400, errorCode: 'invalid_config' });
    expect(record.apiKeyId).not.toBeNull();
  });

  it('records a pass-through request as such, with the provider and status as received', async () => {
    const traceId = `trace-${randomUUID()}`;
    const res = await e2e.fetch('/v1/models', { headers: { 'x-gateway-config': 'fallback', 'x-gateway-trace-id': traceId } });
    await res.arrayBuffer();
    expect(await e2e.recordOf(traceId)).toMatchObject({ status: res.status, provider: 'vendor', configId: 'fallback' });
  });
});
