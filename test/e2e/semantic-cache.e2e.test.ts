// The semantic cache end to end: a real server whose embeddings route is an inline config to the
// vendor mock's bag-of-words model (paraphrases point alike), the official SDK, and the mock counting
// what reached the provider.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSetup } from '../../runtime/cli/serve.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { type RunningGateway, startGateway } from '../../runtime/server/start.ts';
import { BAG_OF_WORDS_MODEL, startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { startRawProvider } from '../mocks/http/raw-provider.ts';

const ADMIN = 'gw_semantic-e2e-admin-key-0123456789abcdef';
const SETTINGS = ['GATEWAY_SEMANTIC_CACHE_EMBEDDINGS', 'GATEWAY_SEMANTIC_CACHE_MODEL', 'GATEWAY_SEMANTIC_CACHE_THRESHOLD'] as const;

describe('semantic cache', () => {
  let gateway: RunningGateway;
  let mock: VendorMock;
  let dir: string;
  const saved = Object.fromEntries(SETTINGS.map((name) => [name, process.env[name]]));

  beforeAll(async () => {
    mock = await startVendorMock({ label: 'semantic' });
    dir = await mkdtemp(join(tmpdir(), 'gateway-semantic-'));
    await mkdir(join(dir, 'configs'));
    const target = { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL };
    await writeFile(join(dir, 'configs', 'semantic.json'), JSON.stringify({ ...target, cache: { mode: 'semantic', max_age: 60 } }));
    process.env.GATEWAY_SEMANTIC_CACHE_EMBEDDINGS = JSON.stringify(target);
    process.env.GATEWAY_SEMANTIC_CACHE_MODEL = BAG_OF_WORDS_MODEL;
    process.env.GATEWAY_SEMANTIC_CACHE_THRESHOLD = '0.85';
    gateway = await startGateway({ port: 0, dataDir: join(dir, 'data'), configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger: silentLogger, storePollMs: 50, setup: serveSetup });
  });
  afterAll(async () => {
    await gateway?.close();
    await mock?.close();
    await rm(dir, { recursive: true, force: true });
    for (const name of SETTINGS) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  const sdk = () => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: VENDOR_MOCK_KEY, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'semantic' } });

  async function ask(content: string, system = 'You answer briefly.') {
    const { data, response } = await sdk().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'system', content: system }, { role: 'user', content }] }).withResponse();
    return { body: data, status: response.headers.get('x-gateway-cache-status'), similarity: response.headers.get('x-gateway-cache-similarity') };
  }

  const chats = () => mock.requests.filter((r) => r.path === '/v1/chat/completions').length;
  const embeds = () => mock.requests.filter((r) => r.path === '/v1/embeddings').length;

  it('answers a paraphrase from the cache (SEMANTIC HIT with its similarity), an exact repeat without embedding, and another question from the provider', async () => {
    const first = await ask('Tell me the capital city of France');
    expect(first.status).toBe('SEMANTIC MISS');
    const [chatsBefore, embedsBefore] = [chats(), embeds()];

    const repeat = await ask('Tell me the capital city of France');
    expect(repeat.status).toBe('HIT');
    expect(embeds()).toBe(embedsBefore);

    const paraphrase = await ask('tell me the capital city of France please');
    expect(paraphrase.status).toBe('SEMANTIC HIT');
    expect(Number(paraphrase.similarity)).toBeGreaterThanOrEqual(0.85);
    expect(Number(paraphrase.similarity)).toBeLessThan(1);
    expect(paraphrase.body).toEqual(first.body);
    expect(chats()).toBe(chatsBefore);

    const other = await ask('Tell me the longest river of Brazil');
    expect(other.status).toBe('SEMANTIC MISS');
    expect(other.similarity).toBeNull();
    expect(chats()).toBe(chatsBefore + 1);
  });

  it('reports its index thread in /v1/health and /metrics', async () => {
    const health = (await (await fetch(`${gateway.url}/v1/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ status: 'ok', semantic_index: { status: 'ok' } });
    expect(await (await fetch(`${gateway.url}/metrics`)).text()).toMatch(/^gateway_backend_up\{backend="semantic_index"\} 1$/m);
  });

  it('matches only within the same scope: another system prompt or model is a miss', async () => {
    await ask('Which planet is the largest one');
    expect((await ask('which planet is the largest one here', 'You answer at length.')).status).toBe('SEMANTIC MISS');
    const { response } = await sdk().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'system', content: 'You answer briefly.' }, { role: 'user', content: 'which planet is the largest one here' }] }).withResponse();
    expect(response.headers.get('x-gateway-cache-status')).toBe('SEMANTIC MISS');
    expect((await ask('which planet is the largest one here')).status).toBe('SEMANTIC HIT');
  });

  it('compares the words only: the same question about another picture is a miss, about the same picture a hit', async () => {
    const about = async (question: string, url: string) => {
      const { response } = await sdk().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: [{ type: 'text', text: question }, { type: 'image_url', image_url: { url } }] }] }).withResponse();
      return response.headers.get('x-gateway-cache-status');
    };
    expect(await about('What animal is in this picture', 'https://example.com/cat.png')).toBe('SEMANTIC MISS');
    const before = chats();
    expect(await about('what animal is in this picture please', 'https://example.com/dog.png')).toBe('SEMANTIC MISS');
    expect(chats()).toBe(before + 1);
    expect(await about('what animal is in this picture please', 'https://example.com/cat.png')).toBe('SEMANTIC HIT');
    expect(chats()).toBe(before + 1);
  });

  it('a failed embedding call makes the request a SEMANTIC MISS, never an error', async () => {
    mock.script({ path: '/v1/embeddings', status: 500 });
    const answer = await ask('An embedding that fails to come back');
    expect(answer.status).toBe('SEMANTIC MISS');
    expect(answer.body.choices[0].message.content).toContain('embedding');
  });

  it('refuses to start when the embeddings route does not resolve: an inline config that does not compile, a saved config id none has', async () => {
    const embeddings = process.env.GATEWAY_SEMANTIC_CACHE_EMBEDDINGS;
    try {
      for (const [route, reason] of [
        ['{"provider": "opnai", "api_key": "k"}', /The config is not valid: No provider is named "opnai"\.\n {2}CFG_UNKNOWN_PROVIDER {2}\/provider/],
        ['no-such-config', /No saved config has the ID "no-such-config"/],
      ] as const) {
        process.env.GATEWAY_SEMANTIC_CACHE_EMBEDDINGS = route;
        const start = startGateway({ port: 0, dataDir: join(dir, 'data-refused'), configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger: silentLogger, setup: serveSetup });
        await expect(start).rejects.toThrow(/^GATEWAY_SEMANTIC_CACHE_EMBEDDINGS names no usable embeddings route: /);
        await expect(start).rejects.toThrow(reason);
      }
      // A saved config id that the configs folder has is a route.
      process.env.GATEWAY_SEMANTIC_CACHE_EMBEDDINGS = 'semantic';
      const named = await startGateway({ port: 0, dataDir: join(dir, 'data-named'), configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger: silentLogger, setup: serveSetup });
      await named.close();
    } finally {
      process.env.GATEWAY_SEMANTIC_CACHE_EMBEDDINGS = embeddings;
    }
  });

  it('skips embedding for a while after an embeddings route stopped answering, instead of making every request wait for it', async () => {
    const silent = await startRawProvider(() => ({ stall: true }));
    const embeddings = process.env.GATEWAY_SEMANTIC_CACHE_EMBEDDINGS;
    // The route's own timeout stands in for the cache's 10 s: the first request waits for it, once.
    process.env.GATEWAY_SEMANTIC_CACHE_EMBEDDINGS = JSON.stringify({ provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: silent.baseURL, request_timeout: 400 });
    const stalled = await startGateway({ port: 0, dataDir: join(dir, 'data-stalled'), configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger: silentLogger, setup: serveSetup });
    try {
      const client = new OpenAI({ baseURL: `${stalled.url}/v1`, apiKey: VENDOR_MOCK_KEY, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'semantic' } });
      const timed = async (content: string) => {
        const started = performance.now();
        const { response } = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }).withResponse();
        return { status: response.headers.get('x-gateway-cache-status'), ms: performance.now() - started };
      };
      const first = await timed('Is anyone listening to embeddings today?');
      expect(first).toMatchObject({ status: 'SEMANTIC MISS' });
      expect(first.ms).toBeGreaterThanOrEqual(400);
      // Within the first second after the failure: no embedding call, no wait.
      for (const question of ['Second question right after', 'Third one', 'A fourth']) {
        const next = await timed(question);
        expect(next.status).toBe('SEMANTIC MISS');
        expect(next.ms).toBeLessThan(300);
      }
      expect(silent.requests).toBe(1);
      const metrics = await (await fetch(`${stalled.url}/metrics`)).text();
      expect(metrics).toMatch(/^gateway_cache_embedding_failures_total 1$/m);
      expect(metrics).toMatch(/^gateway_cache_embedding_skipped_total 3$/m);
    } finally {
      await stalled.close();
      await silent.close();
      process.env.GATEWAY_SEMANTIC_CACHE_EMBEDDINGS = embeddings;
    }
  });
});
