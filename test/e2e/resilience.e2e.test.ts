// Retries, timeouts, circuit breakers, broken streams and disconnecting clients, end to end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VENDOR_MOCK_KEY } from '../mocks/vendor/index.ts';
import { errorOf, startE2E, target, type E2E } from './harness.ts';

let e2e: E2E;

beforeAll(async () => {
  e2e = await startE2E({
    configs: {
      retry: { retry: { attempts: 3 }, ...target(0) },
      'retry-after': { retry: { attempts: 1, use_retry_after_headers: true }, ...target(0) },
      timeout: { request_timeout: 150, ...target(0) },
      'timeout-fallback': { strategy: { mode: 'fallback' }, request_timeout: 150, targets: [target(0), target(1)] },
      breaker: {
        strategy: { mode: 'fallback' },
        cb_config: { failure_threshold: 1, cooldown_interval: 60000 },
        targets: [target(0), target(1)],
      },
      single: target(0),
      // The first target takes its host from x-gateway-custom-host: a circuit per host it names.
      'breaker-by-host': {
        strategy: { mode: 'fallback' },
        cb_config: { failure_threshold: 1, cooldown_interval: 60000 },
        targets: [{ provider: 'vendor', api_key: VENDOR_MOCK_KEY }, target(1)],
      },
    },
  });
});
afterAll(() => e2e.close());

const chat = { model: 'm', messages: [{ role: 'user' as const, content: 'x' }] };

describe('retries', () => {
  it('retries listed statuses and counts the retries in the header', async () => {
    e2e.mocks[0].script({ path: '/v1/chat/completions', status: 429, times: 2 });
    const { data, response } = await e2e.client({ 'x-gateway-config': 'retry' }).chat.completions.create(chat).withResponse();
    expect(data.object).toBe('chat.completion');
    expect(response.headers.get('x-gateway-retry-attempt-count')).toBe('2');
  });

  it('stops after `attempts` retries and returns the provider error', async () => {
    e2e.mocks[0].reset();
    e2e.mocks[0].script({ path: '/v1/chat/completions', status: 503, times: 10 });
    const before = e2e.mocks[0].requests.length;
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': 'retry', 'content-type': 'application/json' }, body: JSON.stringify(chat) });
    expect(res.status).toBe(503);
    expect(res.headers.get('x-gateway-retry-attempt-count')).toBe('3');
    expect(e2e.mocks[0].requests.length - before).toBe(4);
    e2e.mocks[0].reset();
  });

  it('does not retry a status that is not listed', async () => {
    e2e.mocks[0].script({ path: '/v1/chat/completions', status: 400 });
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': 'retry', 'content-type': 'application/json' }, body: JSON.stringify(chat) });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-gateway-retry-attempt-count')).toBe('0');
  });

  it('honours retry-after-ms when use_retry_after_headers is set', async () => {
    e2e.mocks[0].script({ path: '/v1/chat/completions', status: 429, retryAfterMs: 40 });
    const started = performance.now();
    const { response } = await e2e.client({ 'x-gateway-config': 'retry-after' }).chat.completions.create(chat).withResponse();
    // GATEWAY retry cap in the harness is 50 ms; the provider asked for 40 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(38);
    expect(response.headers.get('x-gateway-retry-attempt-count')).toBe('1');
  });
});

describe('timeouts', () => {
  it('answers 408 with the gateway error body when the provider is too slow', async () => {
    e2e.mocks[0].script({ path: '/v1/chat/completions', delayMs: 600 });
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': 'timeout', 'content-type': 'application/json' }, body: JSON.stringify(chat) });
    expect(res.status).toBe(408);
    expect((await errorOf(res))).toMatchObject({ code: 'request_timeout', type: 'timeout_error' });
  });

  it('lets x-gateway-request-timeout override the config', async () => {
    e2e.mocks[0].script({ path: '/v1/chat/completions', delayMs: 300 });
    const res = await e2e.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': 'timeout', 'x-gateway-request-timeout': '1000', 'content-type': 'application/json' },
      body: JSON.stringify(chat),
    });
    expect(res.status).toBe(200);
  });

  it('falls back past a timed-out target', async () => {
    e2e.mocks[0].script({ path: '/v1/chat/completions', delayMs: 600 });
    const { data, response } = await e2e.client({ 'x-gateway-config': 'timeout-fallback' }).chat.completions.create(chat).withResponse();
    expect(data.choices[0].message.content).toContain('mock1');
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
  });
});

describe('circuit breaker', () => {
  it('skips a target whose circuit opened', async () => {
    e2e.mocks[0].script({ path: '/v1/chat/completions', status: 500 });
    const first = await e2e.client({ 'x-gateway-config': 'breaker' }).chat.completions.create(chat).withResponse();
    expect(first.response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    const before = e2e.mocks[0].requests.length;
    const second = await e2e.client({ 'x-gateway-config': 'breaker' }).chat.completions.create(chat).withResponse();
    expect(second.response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(e2e.mocks[0].requests.length).toBe(before);
  });

  it('keeps a circuit per target a request\'s routing headers name: a failing host opens its own only', async () => {
    e2e.mocks[0].reset();
    const byHost = (host: string) => e2e.client({ 'x-gateway-config': 'breaker-by-host', 'x-gateway-custom-host': host }).chat.completions.create(chat).withResponse();
    e2e.mocks[0].script({ path: '/v1/chat/completions', status: 500 });
    expect((await byHost(e2e.mocks[0].baseURL)).response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    // Another host through the same target: its circuit is closed, so the target is tried (and answers).
    expect((await byHost(e2e.mocks[1].baseURL)).response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[0]');
    // The failing host's circuit is still open: skipped without a call.
    const before = e2e.mocks[0].requests.length;
    expect((await byHost(e2e.mocks[0].baseURL)).response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(e2e.mocks[0].requests.length).toBe(before);
    e2e.mocks[0].reset();
  });
});

describe('streams', () => {
  it('ends a stream that breaks mid-way with an error event and no [DONE]', async () => {
    e2e.mocks[0].script({ path: '/v1/chat/completions', breakAfter: 2 });
    const res = await e2e.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': 'single', 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat, stream: true }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('event: error');
    expect(text).toContain('upstream_stream_broken');
    expect(text).not.toContain('[DONE]');
  });

  it('makes the SDK throw rather than return a truncated stream as a success', async () => {
    e2e.mocks[0].script({ path: '/v1/chat/completions', breakAfter: 2 });
    const stream = await e2e.client({ 'x-gateway-config': 'single' }).chat.completions.create({ ...chat, stream: true });
    await expect((async () => {
      for await (const _ of stream) void _;
    })()).rejects.toThrow();
  });

  it('aborts the upstream request when the client goes away', async () => {
    e2e.mocks[0].script({ path: '/v1/chat/completions', stallAfter: 1 });
    const controller = new AbortController();
    const res = await e2e.fetch('/v1/chat/completions', {
      method: 'POST',
      signal: controller.signal,
      headers: { 'x-gateway-config': 'single', 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat, stream: true }),
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    const upstream = e2e.mocks[0].requests.at(-1)!;
    await expect(upstream.outcome).resolves.toBe('client-closed');
  });
});
