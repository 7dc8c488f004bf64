// /metrics on the gateway `serve` builds: Prometheus text that a scraper parses, with requests,
// latency, tokens, cost, upstream attempts, fallbacks, circuit state, inline-config cache hits, pools,
// the log queue and the process's own metrics counted from real traffic; and the optional key.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningGateway } from '../../runtime/server/start.ts';
import { type ServedConfigs, serveConfigs } from './serve-in-process.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { connectRealtime } from '../support/realtime-client.ts';

const ADMIN = 'gw_metrics-e2e-admin-key-0123456789abcdefgh';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text exposition format, as a scraper reads it. */
export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]] = pair[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

function sum(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((total, s) => total + s.value, 0);
}

describe('/metrics', () => {
  let gateway: RunningGateway;
  let mock: VendorMock;
  let served: ServedConfigs;

  beforeAll(async () => {
    mock = await startVendorMock({ label: 'metrics' });
    const target = { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL };
    served = await serveConfigs('metrics', ADMIN, {
      chat: target,
      fallback: {
        strategy: { mode: 'fallback' },
        targets: [{ ...target, custom_host: 'http://127.0.0.1:9/v1', cb_config: { failure_threshold: 1, cooldown_interval: 60_000 } }, target],
      },
      // The first target's host comes from x-gateway-custom-host: one circuit per host it names.
      'by-host': {
        strategy: { mode: 'fallback' },
        targets: [{ provider: 'openai', api_key: VENDOR_MOCK_KEY, cb_config: { failure_threshold: 1, cooldown_interval: 60_000 } }, target],
      },
    });
    gateway = served.gateway;
  });
  afterAll(async () => {
    await served?.close();
    await mock?.close();
  });

  async function chat(config: string, extra: Record<string, string> = {}): Promise<{ usage: { prompt_tokens: number; completion_tokens: number } }> {
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST', headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': config, 'content-type': 'application/json', ...extra },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'count me' }] }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
  }

  async function scrape(headers: Record<string, string> = {}): Promise<Sample[]> {
    const res = await fetch(`${gateway.url}/metrics`, { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    return parsePrometheus(await res.text());
  }

  it('counts real traffic: requests, latency, tokens, cost, attempts, fallbacks, circuits, inline configs, pools, the log queue', async () => {
    const before = await scrape();
    const answers = [await chat('chat'), await chat('chat')];
    await chat('fallback');
    const inline = JSON.stringify({ provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL });
    await chat(inline);
    await chat(inline);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => sum(after, name, labels) - sum(before, name, labels);

    const ok = { route_kind: 'inference', provider: 'vendor', model: 'gpt-4o-mini', status_class: '2xx', cache_status: 'DISABLED' };
    expect(delta('gateway_requests_total', ok)).toBe(5);
    expect(delta('gateway_request_duration_seconds_count', { route_kind: 'inference', provider: 'vendor', status_class: '2xx' })).toBe(5);
    const input = answers[0].usage.prompt_tokens;
    expect(delta('gateway_tokens_total', { provider: 'vendor', model: 'gpt-4o-mini', type: 'input' })).toBe(input * 5);
    expect(delta('gateway_cost_usd_total', { provider: 'vendor', model: 'gpt-4o-mini' })).toBeGreaterThan(0);
    // The fallback request: one failed attempt on the dead target, then a fallback to the live one.
    expect(delta('gateway_upstream_duration_seconds_count', { provider: 'vendor', status_class: 'error' })).toBe(1);
    expect(delta('gateway_upstream_duration_seconds_count', { provider: 'vendor', status_class: '2xx' })).toBe(5);
    expect(delta('gateway_fallbacks_total', { provider: 'vendor' })).toBe(1);
    expect(sum(after, 'gateway_circuit_state', { config: 'fallback', target: 'config.targets[0]' })).toBe(1);
    expect(delta('gateway_inline_config_cache_total', { result: 'miss' })).toBe(1);
    expect(delta('gateway_inline_config_cache_total', { result: 'hit' })).toBe(1);
    expect(sum(after, 'gateway_upstream_pools')).toBeGreaterThanOrEqual(1);
    expect(after.some((s) => s.name === 'gateway_log_queue_records')).toBe(true);
    expect(sum(after, 'gateway_log_dropped_records')).toBe(0);
    expect(sum(after, 'gateway_log_keyless_dropped_records')).toBe(0);
    expect(after.some((s) => s.name === 'gateway_nodejs_eventloop_lag_seconds')).toBe(true);
    expect(after.some((s) => s.name === 'gateway_process_resident_memory_bytes')).toBe(true);
  });

  it('shows the requests in flight and the WebSocket sessions open while they last, and neither once they ended', async () => {
    const idle = await scrape();
    // The scrape itself is the one request in flight.
    expect(sum(idle, 'gateway_requests_in_flight')).toBe(1);
    expect(sum(idle, 'gateway_websocket_sessions')).toBe(0);
    // A chat the provider holds for a while, and a realtime session.
    mock.script({ path: '/v1/chat/completions', delayMs: 1500 });
    const held = chat('chat');
    const session = await connectRealtime(`${gateway.url}/v1/realtime?model=gpt-realtime`, { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'chat' });
    await session.event('session.created');
    // The chat, the session and the scrape (the chat may still be on its way in).
    await vi.waitFor(async () => {
      const busy = await scrape();
      expect(sum(busy, 'gateway_requests_in_flight')).toBe(3);
      expect(sum(busy, 'gateway_websocket_sessions')).toBe(1);
    });
    await held;
    // One response, whose usage (REALTIME_USAGE) is counted when the session ends: its cached audio apart.
    session.socket.send(JSON.stringify({ type: 'response.create' }));
    await session.event('response.done');
    session.socket.close(1000);
    await session.closed;
    await vi.waitFor(async () => {
      const after = await scrape();
      expect(sum(after, 'gateway_requests_in_flight')).toBe(1);
      expect(sum(after, 'gateway_websocket_sessions')).toBe(0);
      const tokens = (type: string) => sum(after, 'gateway_tokens_total', { model: 'gpt-realtime', type });
      expect([tokens('input'), tokens('cached_input'), tokens('cached_audio_input'), tokens('audio_input'), tokens('audio_output')]).toEqual([40, 12, 4, 6, 12]);
    });
  });

  it('shows one circuit series per configured target, open while any target its routing headers named is', async () => {
    for (const host of ['http://127.0.0.1:9/v1', 'http://127.0.0.1:7/v1']) await chat('by-host', { 'x-gateway-custom-host': host });
    const series = (await scrape()).filter((s) => s.name === 'gateway_circuit_state' && s.labels.config === 'by-host');
    expect(series.map((s) => [s.labels.target, s.value])).toEqual([['config.targets[0]', 1]]);
  });
  it('counts a gateway error and a 401 by status class', async () => {
    const before = await scrape();
    await (await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'x-gateway-api-key': 'nope' }, body: '{}' })).arrayBuffer();
    const after = await scrape();
    expect(sum(after, 'gateway_requests_total', { status_class: '4xx', provider: 'none' }) - sum(before, 'gateway_requests_total', { status_class: '4xx', provider: 'none' })).toBe(1);
  });

  it('wants GATEWAY_METRICS_KEY when it is set, as a bearer token or x-gateway-api-key', async () => {
    process.env.GATEWAY_METRICS_KEY = 'scrape-secret';
    let served: ServedConfigs;
    try {
      served = await serveConfigs('metrics-key', ADMIN, {});
    } finally {
      delete process.env.GATEWAY_METRICS_KEY;
    }
    const keyed = served.gateway;
    try {
      expect((await fetch(`${keyed.url}/metrics`)).status).toBe(401);
      expect((await fetch(`${keyed.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      expect((await fetch(`${keyed.url}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } })).status).toBe(200);
      expect((await fetch(`${keyed.url}/metrics`, { headers: { 'x-gateway-api-key': 'scrape-secret' } })).status).toBe(200);
    } finally {
      await served.close();
    }
  });
});
