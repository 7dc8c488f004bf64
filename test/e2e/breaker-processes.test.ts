// Circuit breakers across processes, with real parts only: two `gateway serve` processes on one
// Redis count failures of a target together, and a circuit opened by the failures both saw is open
// in each, so both skip the target; and a gateway whose Redis dies keeps its circuits in the process.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { type ServeProcess, startPrivateRedis, startServe, until, stopServes } from './serve-processes.ts';

const ADMIN_KEY = 'gw_breaker-process-admin-key-0123456789abcde';

describe('circuit breakers across processes', () => {
  let mock: VendorMock;
  let dir: string;
  beforeAll(async () => {
    mock = await startVendorMock({ label: 'breaker-processes' });
    dir = await mkdtemp(join(tmpdir(), 'gateway-breaker-processes-'));
    await mkdir(join(dir, 'configs'));
    // The first target's key is refused (401, counted as a failure here): each try of it reaches the mock and fails.
    await writeFile(join(dir, 'configs', 'guarded.json'), JSON.stringify({
      strategy: { mode: 'fallback' },
      cb_config: { failure_threshold: 2, cooldown_interval: 30_000, failure_status_codes: [401] },
      targets: [{ provider: 'openai', api_key: 'sk-refused', custom_host: mock.baseURL }, { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL }],
    }));
  });
  afterAll(async () => {
    await mock?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function chat(url: string): Promise<{ status: number; used: string | null; retries: string | null }> {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN_KEY, 'x-gateway-config': 'guarded', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await res.arrayBuffer();
    return { status: res.status, used: res.headers.get('x-gateway-last-used-option-index'), retries: res.headers.get('x-gateway-retry-attempt-count') };
  }

  async function circuitOpen(url: string): Promise<boolean> {
    const metrics = await (await fetch(`${url}/metrics`)).text();
    return /^gateway_circuit_state\{config="guarded",target="config\.targets\[0\]"\} 1$/m.test(metrics);
  }

  it('two serve processes on one Redis count failures together and skip the target the other opened', { timeout: 60_000 }, async () => {
    const redis = await startPrivateRedis();
    const processes: ServeProcess[] = [];
    try {
      const env = { GATEWAY_API_KEY: ADMIN_KEY, REDIS_URL: redis.url, GATEWAY_MEMORY_TUNING: 'off', GATEWAY_REQUEST_LOG: 'off' };
      processes.push(await startServe(env, join(dir, 'data'), ['--configs', join(dir, 'configs')]));
      processes.push(await startServe(env, join(dir, 'data'), ['--configs', join(dir, 'configs')]));
      const [a, b] = processes.map((p) => p.url);
      // One failure in each process: alone, neither reaches the threshold of 2.
      let before = mock.requests.length;
      expect(await chat(a)).toMatchObject({ status: 200, used: 'config.targets[1]' });
      expect(mock.requests.length).toBe(before + 2);
      expect(await until(() => circuitOpen(a), (open) => open, 300)).toBe(false);
      expect(await chat(b)).toMatchObject({ status: 200, used: 'config.targets[1]' });
      // Together they did: open in both, and the first process skips the target it saw fail once.
      expect(await until(() => circuitOpen(a), (open) => open)).toBe(true);
      expect(await circuitOpen(b)).toBe(true);
      before = mock.requests.length;
      expect(await chat(a)).toMatchObject({ status: 200, used: 'config.targets[1]' });
      expect(mock.requests.length).toBe(before + 1);
    } finally {
      await stopServes(...processes);
      await redis.kill();
    }
  });

  it('keeps serving when its Redis dies: circuits count in the process, counted in /metrics, never a 5xx', { timeout: 60_000 }, async () => {
    const redis = await startPrivateRedis();
    const env = { GATEWAY_API_KEY: ADMIN_KEY, REDIS_URL: redis.url, GATEWAY_REDIS_TIMEOUT_MS: '100', GATEWAY_MEMORY_TUNING: 'off', GATEWAY_REQUEST_LOG: 'off' };
    const serve = await startServe(env, join(dir, 'data-dies'), ['--configs', join(dir, 'configs')]);
    try {
      const health = async () => (await (await fetch(`${serve.url}/v1/health`)).json()) as { status: string; redis?: { status: string } };
      expect(await health()).toMatchObject({ status: 'ok', redis: { status: 'ok' } });
      await redis.kill();
      // Still serving, so ok; the Redis connection is reported as it is.
      expect(await until(health, (h) => h.redis?.status === 'unavailable')).toMatchObject({ status: 'ok' });
      expect(await (await fetch(`${serve.url}/metrics`)).text()).toMatch(/^gateway_backend_up\{backend="redis"\} 0$/m);
      // Two failures of the first target in this process alone open its circuit: the third request skips it.
      for (let i = 0; i < 2; i++) expect(await chat(serve.url)).toMatchObject({ status: 200, used: 'config.targets[1]' });
      expect(await circuitOpen(serve.url)).toBe(true);
      const before = mock.requests.length;
      expect(await chat(serve.url)).toMatchObject({ status: 200, used: 'config.targets[1]' });
      expect(mock.requests.length).toBe(before + 1);
      const metrics = await (await fetch(`${serve.url}/metrics`)).text();
      expect(Number(/^gateway_breaker_sync_failures_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(2);
    } finally {
      await stopServes(serve);
      await redis.kill();
    }
  });
});
