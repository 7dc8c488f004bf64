// The README's quick start, as a newcomer runs it: `gateway mock-provider` on its default port and
// `gateway serve --configs examples/configs`, then a routed request through examples/configs/mock.json
// with the official SDK, streamed and not, with no provider account and no network. (The mock runs on
// a free port here, with the example's host rewritten to it; the example itself names the default.)
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type ServeProcess, startServe, until } from '../e2e/serve-processes.ts';
import { connectRealtime } from '../support/realtime-client.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/gateway.js');
const KEY = 'dev-key';

describe('quick start without a provider account', () => {
  let mock: ChildProcess;
  let serve: ServeProcess;
  let dir: string;
  let mockURL: string;
  beforeAll(async () => {
    const shipped = JSON.parse(await readFile(join(ROOT, 'examples/configs/mock.json'), 'utf8')) as { custom_host: string };
    expect(shipped.custom_host).toBe('http://127.0.0.1:9000/v1');
    const port = await freePort();
    mock = spawn(process.execPath, [BIN, 'mock-provider', '--port', String(port)]);
    await new Promise<void>((ready, fail) => {
      let out = '';
      mock.stdout!.on('data', (chunk) => {
        out += chunk;
        if (out.includes(`mock provider listening on http://127.0.0.1:${port}/v1`)) ready();
      });
      mock.on('exit', (code) => fail(new Error(`mock-provider exited with ${code}`)));
    });
    mockURL = `http://127.0.0.1:${port}/v1`;
    dir = await mkdtemp(join(tmpdir(), 'gateway-quick-start-'));
    await mkdir(join(dir, 'configs'));
    await writeFile(join(dir, 'configs', 'mock.json'), JSON.stringify({ ...shipped, custom_host: `http://127.0.0.1:${port}/v1` }));
    serve = await startServe({ GATEWAY_API_KEY: KEY }, join(dir, 'data'), ['--configs', join(dir, 'configs')]);
  });
  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await serve?.exited;
    mock?.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  });

  it('routes a chat completion through the example config, streamed and not', async () => {
    const client = new OpenAI({ baseURL: `${serve.url}/v1`, apiKey: 'any-key', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': KEY, 'x-gateway-config': 'mock' } });
    const completion = await client.chat.completions.create({ model: 'mock-chat', messages: [{ role: 'user', content: 'Hello gateway' }] });
    expect(completion.choices[0].message.content).toBe('[mock] Hello gateway');
    const stream = await client.chat.completions.create({ model: 'mock-chat', stream: true, messages: [{ role: 'user', content: 'streamed words' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('[mock] streamed words');
    const embedding = await client.embeddings.create({ model: 'mock-embed', input: 'x' });
    expect(embedding.data[0].embedding).toHaveLength(64);
  });

  it('routes a Responses call to the mock, streamed and not (the vendor has the API, so the gateway forwards it)', async () => {
    const client = new OpenAI({ baseURL: `${serve.url}/v1`, apiKey: 'any-key', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': KEY, 'x-gateway-config': 'mock' } });
    const response = await client.responses.create({ model: 'mock-chat', input: 'Hello responses' });
    expect(response.output_text).toBe('[mock] Hello responses');
    expect(response.usage?.output_tokens).toBe(3);
    const stream = await client.responses.create({ model: 'mock-chat', stream: true, input: [{ role: 'user', content: [{ type: 'input_text', text: 'streamed' }, { type: 'input_text', text: 'parts' }] }] });
    let text = '';
    let completed: string | null = null;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response.output_text;
    }
    expect(text).toBe('[mock] streamed parts');
    expect(completed).toBe(text);
  });

  it('carries a realtime session to the mock over a WebSocket, as the README shows, and logs it with its usage', async () => {
    const session = await connectRealtime(`${serve.url}/v1/realtime?model=gpt-realtime`, { 'x-gateway-api-key': KEY, 'x-gateway-config': 'mock', 'x-gateway-trace-id': 'quick-start-realtime', authorization: 'Bearer any-key' });
    session.socket.send(JSON.stringify({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello realtime' }] } }));
    session.socket.send(JSON.stringify({ type: 'response.create' }));
    const done = (await session.event('response.done')).response as { output: Array<{ content: Array<{ text: string }> }> };
    expect(done.output[0].content[0].text).toBe('[mock] Hello realtime');
    session.socket.close();
    await session.closed;
    const logged = await until(async () => (await (await fetch(`${serve.url}/v1/logs?trace_id=quick-start-realtime`, { headers: { 'x-gateway-api-key': KEY } })).json()) as { data: Array<Record<string, any>> }, (page) => page.data.length === 1);
    expect(logged.data[0]).toMatchObject({ status: 101, model_answered: 'gpt-realtime', usage: { input_tokens: 2, output_tokens: 3, total_tokens: 5 } });
    expect(logged.data[0].cost_usd).toBeGreaterThan(0);
  });

  it("lets a semantic cache be tried on the mock's bag-of-words embeddings, as docs/cache.md shows", async () => {
    const semantic = await startServe({
      GATEWAY_API_KEY: KEY,
      GATEWAY_SEMANTIC_CACHE_MODEL: 'mock-embed',
      GATEWAY_SEMANTIC_CACHE_THRESHOLD: '0.9',
      GATEWAY_SEMANTIC_CACHE_EMBEDDINGS: JSON.stringify({ provider: 'vendor', api_key: 'mock', custom_host: mockURL }),
    }, join(dir, 'semantic-data'), ['--configs', join(dir, 'configs')]);
    try {
      const config = JSON.stringify({ provider: 'vendor', custom_host: mockURL, cache: { mode: 'semantic' } });
      const client = new OpenAI({ baseURL: `${semantic.url}/v1`, apiKey: 'any-key', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': KEY, 'x-gateway-config': config } });
      const ask = async (content: string) => (await client.chat.completions.create({ model: 'mock-chat', messages: [{ role: 'user', content }] }).withResponse()).response.headers;
      expect((await ask('What is the capital of France?')).get('x-gateway-cache-status')).toBe('SEMANTIC MISS');
      const reworded = await ask('what is the capital of France, please?');
      expect(reworded.get('x-gateway-cache-status')).toBe('SEMANTIC HIT');
      expect(reworded.get('x-gateway-cache-similarity')).toBe('0.9258');
      expect((await ask('What is the capital of Spain?')).get('x-gateway-cache-status')).toBe('SEMANTIC MISS');
    } finally {
      semantic.child.kill('SIGTERM');
      await semantic.exited;
    }
  });
});

describe('gateway mock-provider failures', () => {
  it('answers every Nth request with the failure status, the rest as the vendor would', async () => {
    const { startMockProvider } = await import('../../runtime/cli/mock-provider.ts');
    const server = startMockProvider({ failEvery: 3, failStatus: 503, latencyMs: 0 });
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    const { port } = server.address() as { port: number };
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }) });
        statuses.push(res.status);
        await res.arrayBuffer();
      }
      expect(statuses).toEqual([200, 200, 503, 200, 200, 503]);
    } finally {
      server.close();
    }
  });
});
