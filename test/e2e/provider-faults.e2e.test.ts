// A provider that answers garbage is a failed attempt, never something the gateway relays as if it
// were an answer: it is retried and falls back like any 5xx, and alone it is 502 with a stable code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, errorOf, startE2E, target } from './harness.ts';
import { httpAnswer, type RawProvider, startRawProvider } from '../mocks/http/raw-provider.ts';

const CHAT = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

describe('a provider that answers with a status HTTP does not have', () => {
  let e2e: E2E;
  let raw: RawProvider;

  beforeAll(async () => {
    raw = await startRawProvider(() => ({ bytes: httpAnswer(999, '{"id":"odd"}') }));
    e2e = await startE2E({ mocks: 1 });
  });
  afterAll(async () => {
    await e2e?.close();
    await raw?.close();
  });

  function config(targets: unknown[], strategy?: unknown): string {
    return JSON.stringify(strategy === undefined ? targets[0] : { strategy, targets }).replaceAll('{{mock0}}', e2e.mocks[0].baseURL).replaceAll('{{raw}}', raw.baseURL);
  }

  it('is answered 502 provider_invalid_response, not relayed', async () => {
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': config([{ ...target(0), custom_host: '{{raw}}' }]), 'content-type': 'application/json' }, body: CHAT });
    expect(res.status).toBe(502);
    expect((await errorOf(res)).code).toBe('provider_invalid_response');
  });

  it('falls back to the next target, and is retried', async () => {
    const before = raw.requests;
    const res = await e2e.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': config([{ ...target(0), custom_host: '{{raw}}', retry: { attempts: 2 } }, target(0)], { mode: 'fallback' }), 'content-type': 'application/json' },
      body: CHAT,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    await res.arrayBuffer();
    expect(raw.requests - before).toBe(3);
  });
});

describe('a provider that never answers', () => {
  let e2e: E2E;
  let stalled: RawProvider;
  const saved = process.env.GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS;

  beforeAll(async () => {
    stalled = await startRawProvider(() => ({ stall: true }));
    // The server default is 60 s; a short one keeps the test fast and shows it is a setting.
    process.env.GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS = '300';
    e2e = await startE2E({ mocks: 1 });
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS;
    else process.env.GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS = saved;
    await e2e?.close();
    await stalled?.close();
  });

  it('times out without a request_timeout, and the fallback answers', async () => {
    const config = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ ...target(0), custom_host: stalled.baseURL }, target(0)] }).replaceAll('{{mock0}}', e2e.mocks[0].baseURL);
    const started = performance.now();
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': config, 'content-type': 'application/json' }, body: CHAT });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    await res.arrayBuffer();
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('alone is answered 408 request_timeout', async () => {
    const config = JSON.stringify({ ...target(0), custom_host: stalled.baseURL });
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': config, 'content-type': 'application/json' }, body: CHAT });
    expect(res.status).toBe(408);
    expect((await errorOf(res)).code).toBe('request_timeout');
  });
});
