// The response cache across processes, with real parts only: two `gateway serve` processes on one
// Redis share entries, simple and semantic (a paraphrase stored through one is a SEMANTIC HIT in the
// other); a gateway whose Redis dies keeps answering from the provider (MISS), never a 5xx; and
// without Redis, where each process caches in its own memory, a purge through one reaches the other.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSetup } from '../../runtime/cli/serve.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { startGateway } from '../../runtime/server/start.ts';
import { BAG_OF_WORDS_MODEL, startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { type ServeProcess, startPrivateRedis, startServe, until, stopServes } from './serve-processes.ts';

const ADMIN_KEY = 'gw_cache-process-admin-key-0123456789abcdefg';

describe('response cache across processes', () => {
  let mock: VendorMock;
  let dir: string;
  beforeAll(async () => {
    mock = await startVendorMock({ label: 'cache-processes' });
    dir = await mkdtemp(join(tmpdir(), 'gateway-cache-processes-'));
    await mkdir(join(dir, 'configs'));
    const target = { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL };
    await writeFile(join(dir, 'configs', 'simple.json'), JSON.stringify({ ...target, cache: { mode: 'simple', max_age: 60 } }));
    await writeFile(join(dir, 'configs', 'semantic.json'), JSON.stringify({ ...target, cache: { mode: 'semantic', max_age: 60 } }));
    // For a gateway without the semantic setting, which refuses to start with a semantic config.
    await mkdir(join(dir, 'simple-only'));
    await writeFile(join(dir, 'simple-only', 'simple.json'), JSON.stringify({ ...target, cache: { mode: 'simple', max_age: 60 } }));
  });
  afterAll(async () => {
    await mock?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function chat(url: string, config: string, content: string): Promise<{ status: number; cache: string | null; body: any }> {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN_KEY, 'x-gateway-config': config, authorization: `Bearer ${VENDOR_MOCK_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
    });
    return { status: res.status, cache: res.headers.get('x-gateway-cache-status'), body: await res.json() };
  }

  it('two serve processes on one Redis share cached answers, simple and semantic', { timeout: 60_000 }, async () => {
    const redis = await startPrivateRedis();
    const processes: ServeProcess[] = [];
    try {
      const env = {
        GATEWAY_API_KEY: ADMIN_KEY, REDIS_URL: redis.url, GATEWAY_MEMORY_TUNING: 'off', GATEWAY_REQUEST_LOG: 'off',
        GATEWAY_SEMANTIC_CACHE_EMBEDDINGS: JSON.stringify({ provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL }),
        GATEWAY_SEMANTIC_CACHE_MODEL: BAG_OF_WORDS_MODEL, GATEWAY_SEMANTIC_CACHE_THRESHOLD: '0.85',
      };
      // One store (its keys, hence workspaces, are the entries' scope), then the second process on it.
      processes.push(await startServe(env, join(dir, 'data'), ['--configs', join(dir, 'configs')]));
      processes.push(await startServe(env, join(dir, 'data'), ['--configs', join(dir, 'configs')]));
      const [a, b] = processes.map((p) => p.url);
      const run = randomUUID();

      const first = await chat(a, 'simple', `shared simple ${run}`);
      expect(first.cache).toBe('MISS');
      // The entry is stored in Redis a moment after the answer completed; asked before that, the other
      // process would miss and store its own answer. The first process reads Redis only, so its HIT
      // says the entry is there: the other process's very first request then hits.
      await until(() => chat(a, 'simple', `shared simple ${run}`), (r) => r.cache === 'HIT');
      const other = await chat(b, 'simple', `shared simple ${run}`);
      expect(other.cache).toBe('HIT');
      expect(other.body).toEqual(first.body);

      const asked = await chat(a, 'semantic', `Tell me the capital city of France ${run}`);
      expect(asked.cache).toBe('SEMANTIC MISS');
      // The index is kept in step through a Redis stream, a moment after the answer: asked before the
      // vector arrived, the paraphrase would be a miss that stores its own answer (then an exact HIT).
      await until(() => semanticVectors(b), (count) => count >= 1);
      const paraphrase = await chat(b, 'semantic', `tell me the capital city of France ${run} please`);
      expect(paraphrase.cache).toBe('SEMANTIC HIT');
      expect(paraphrase.body).toEqual(asked.body);
      const chats = mock.requests.filter((r) => r.path === '/v1/chat/completions' && JSON.stringify(r.json).includes(run));
      expect(chats.length).toBe(2);
    } finally {
      await stopServes(...processes);
      await redis.kill();
    }
  });

  it('without Redis, a purge through one process empties the other\'s memory cache too, within a poll', { timeout: 60_000 }, async () => {
    const processes: ServeProcess[] = [];
    try {
      const env = { GATEWAY_API_KEY: ADMIN_KEY, GATEWAY_MEMORY_TUNING: 'off', GATEWAY_REQUEST_LOG: 'off', GATEWAY_STORE_POLL_MS: '100' };
      // Two processes on one SQLite file, as two servers on one PostgreSQL share it.
      processes.push(await startServe(env, join(dir, 'memory-data'), ['--configs', join(dir, 'simple-only')]));
      processes.push(await startServe(env, join(dir, 'memory-data'), ['--configs', join(dir, 'simple-only')]));
      const [a, b] = processes.map((p) => p.url);
      const run = randomUUID();
      const namespaced = (url: string, namespace: string) => chatIn(url, namespace, `purged everywhere ${run}`);
      // Each process holds its own entry of each namespace.
      for (const url of [a, b]) {
        for (const namespace of ['kept', 'purged']) {
          expect((await namespaced(url, namespace)).cache).toBe('MISS');
          expect((await until(() => namespaced(url, namespace), (r) => r.cache === 'HIT')).cache).toBe('HIT');
        }
      }
      const purge = await fetch(`${a}/v1/cache?namespace=purged`, { method: 'DELETE', headers: { 'x-gateway-api-key': ADMIN_KEY } });
      expect(purge.status).toBe(200);
      // What the answering process held; the other purges its own when its change feed polls.
      expect(await purge.json()).toEqual({ object: 'cache.purge', purged: 1, namespace: 'purged', config_id: null });
      expect((await namespaced(a, 'purged')).cache).toBe('MISS');
      expect((await until(() => namespaced(b, 'purged'), (r) => r.cache === 'MISS', 3000)).cache).toBe('MISS');
      expect((await namespaced(b, 'kept')).cache).toBe('HIT');
      expect((await namespaced(a, 'kept')).cache).toBe('HIT');
    } finally {
      await stopServes(...processes);
    }
  });

  async function chatIn(url: string, namespace: string, content: string): Promise<{ status: number; cache: string | null }> {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN_KEY, 'x-gateway-config': 'simple', 'x-gateway-cache-namespace': namespace, authorization: `Bearer ${VENDOR_MOCK_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
    });
    await res.arrayBuffer();
    return { status: res.status, cache: res.headers.get('x-gateway-cache-status') };
  }

  it('keeps answering when its Redis dies: MISS from the provider, counted in /metrics, never a 5xx', { timeout: 60_000 }, async () => {
    const redis = await startPrivateRedis();
    const data = await mkdtemp(join(tmpdir(), 'gateway-cache-redis-'));
    const saved = { REDIS_URL: process.env.REDIS_URL, GATEWAY_REDIS_TIMEOUT_MS: process.env.GATEWAY_REDIS_TIMEOUT_MS };
    process.env.REDIS_URL = redis.url;
    process.env.GATEWAY_REDIS_TIMEOUT_MS = '100';
    const gateway = await startGateway({ port: 0, dataDir: data, configsDir: join(dir, 'simple-only'), seedApiKey: ADMIN_KEY, logger: silentLogger, storePollMs: 50, setup: serveSetup }).finally(() => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });
    try {
      const run = randomUUID();
      expect((await chat(gateway.url, 'simple', `redis dies ${run}`)).cache).toBe('MISS');
      await until(() => chat(gateway.url, 'simple', `redis dies ${run}`), (r) => r.cache === 'HIT');
      await redis.kill();
      const during = [];
      for (let i = 0; i < 3; i++) during.push(await chat(gateway.url, 'simple', `redis dies ${run}`));
      expect(during.map((r) => [r.status, r.cache])).toEqual([[200, 'MISS'], [200, 'MISS'], [200, 'MISS']]);
      const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
      expect(Number(/^gateway_cache_backend_failures_total\{operation="get"\} (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3);
      // The admin's purge says Redis did not answer, rather than "0 purged".
      const purge = await fetch(`${gateway.url}/v1/cache`, { method: 'DELETE', headers: { 'x-gateway-api-key': ADMIN_KEY } });
      expect(purge.status).toBe(503);
      expect(((await purge.json()) as any).error.code).toBe('cache_unavailable');
    } finally {
      await gateway.close();
      await redis.kill();
      await rm(data, { recursive: true, force: true });
    }
  });
});

async function semanticVectors(url: string): Promise<number> {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  return Number(/^gateway_cache_semantic_vectors (\d+)/m.exec(metrics)?.[1] ?? 0);
}
