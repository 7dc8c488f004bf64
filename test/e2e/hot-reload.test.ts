// `gateway serve` reloads its --configs and guardrails folders while it serves: under steady traffic a
// config file rewritten 50 times fails no request and the last version routes within a second; an
// invalid write keeps the router loaded before and logs the error, located; a new file routes and a
// deleted one stops; a changed guardrail file reaches the configs that name it; with --no-watch only
// SIGHUP reloads; /v1/health reports the loaded revision.
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { type ServeProcess, startServe } from './serve-processes.ts';

const KEY = 'gw-hot-reload-key';

describe('hot reload of the configs folder', () => {
  let dir: string;
  let mocks: VendorMock[];
  let serve: ServeProcess;
  let stderr = '';
  const config = (mock: number, extra: Record<string, unknown> = {}) => JSON.stringify({ provider: 'vendor', api_key: VENDOR_MOCK_KEY, custom_host: mocks[mock].baseURL, ...extra }, null, 2);
  const chat = async (url: string, config: string, content = 'hi'): Promise<{ status: number; text: string }> => {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': KEY, 'x-gateway-config': config, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
    });
    const body = (await res.json()) as { choices?: Array<{ message: { content: string } }> };
    return { status: res.status, text: body.choices?.[0]?.message.content ?? '' };
  };
  const until = async (condition: () => Promise<boolean>, withinMs: number): Promise<number> => {
    const started = Date.now();
    while (!(await condition())) {
      if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return Date.now() - started;
  };

  beforeAll(async () => {
    mocks = [await startVendorMock({ label: 'mock0' }), await startVendorMock({ label: 'mock1' })];
    dir = await mkdtemp(join(tmpdir(), 'gateway-hot-reload-'));
    await mkdir(join(dir, 'configs'));
    await mkdir(join(dir, 'guardrails'));
    await writeFile(join(dir, 'configs', 'live.json'), config(0));
    await writeFile(join(dir, 'guardrails', 'short.json'), JSON.stringify({ checks: [{ id: 'default.wordCount', parameters: { maxWords: 3 } }], deny: true }));
    await writeFile(join(dir, 'configs', 'guarded.json'), config(0, { input_guardrails: ['short'] }));
    serve = await startServe({ GATEWAY_API_KEY: KEY, GATEWAY_REQUEST_LOG: 'off' }, join(dir, 'data'), ['--configs', join(dir, 'configs')]);
    serve.child.stderr!.on('data', (chunk) => (stderr += chunk));
  });
  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await serve?.exited;
    await Promise.all(mocks.map((m) => m.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it('fails no request while a config file is rewritten 50 times, and routes the last version within a second', async () => {
    let stop = false;
    const statuses: number[] = [];
    const client = async (): Promise<void> => {
      while (!stop) statuses.push((await chat(serve.url, 'live')).status);
    };
    const clients = [client(), client(), client(), client()];
    for (let i = 1; i <= 50; i++) {
      await writeFile(join(dir, 'configs', 'live.json'), config(i % 2));
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    // The last write names mock0 (50 is even).
    await writeFile(join(dir, 'configs', 'live.json'), config(1));
    const took = await until(async () => (await chat(serve.url, 'live')).text.startsWith('[mock1]'), 1000);
    stop = true;
    await Promise.all(clients);
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(took).toBeLessThan(1000);
  });

  it('keeps the loaded router when a write is invalid, and logs the error located', async () => {
    await writeFile(join(dir, 'configs', 'live.json'), '{\n  "provider": "vendor",\n  "stratgy": {}\n}');
    await until(async () => stderr.includes('live.json:3:3'), 2000);
    expect(stderr).toMatch(/"event":"config_file_invalid".*"file":"[^"]*live\.json:3:3".*"code":"CFG_UNKNOWN_KEY"/);
    const answer = await chat(serve.url, 'live');
    expect(answer).toMatchObject({ status: 200 });
    expect(answer.text.startsWith('[mock1]')).toBe(true);
  });

  it('treats a file changed to a semantic cache this gateway cannot run as invalid: kept the version before, logged located', async () => {
    await writeFile(join(dir, 'configs', 'live.json'), config(1));
    await until(async () => (await chat(serve.url, 'live')).text.startsWith('[mock1]'), 2000);
    await writeFile(join(dir, 'configs', 'live.json'), config(0, { cache: { mode: 'semantic' } }));
    await until(async () => stderr.includes('CFG_SEMANTIC_CACHE_NEEDS_SERVER'), 2000);
    expect(stderr).toMatch(/"event":"config_file_invalid".*"file":"[^"]*live\.json:\d+:\d+".*"code":"CFG_SEMANTIC_CACHE_NEEDS_SERVER","pointer":"\/cache\/mode"/);
    const answer = await chat(serve.url, 'live');
    expect(answer).toMatchObject({ status: 200 });
    expect(answer.text.startsWith('[mock1]')).toBe(true);
  });

  it('does not reload for files that are not configs (a log written into the folder while a config is invalid looped: each reload logged, each log line reloaded)', async () => {
    const reloads = () => stderr.split('"event":"configs_reloaded"').length - 1;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = reloads();
    for (let i = 0; i < 10; i++) {
      await writeFile(join(dir, 'configs', 'gateway.log'), `line ${i}\n`, { flag: 'a' });
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(reloads()).toBe(before);
    await unlink(join(dir, 'configs', 'gateway.log'));
  });

  it('routes a new file and stops routing a deleted one', async () => {
    await writeFile(join(dir, 'configs', 'fresh.json'), config(0));
    await until(async () => (await chat(serve.url, 'fresh')).status === 200, 1000);
    await unlink(join(dir, 'configs', 'fresh.json'));
    await until(async () => (await chat(serve.url, 'fresh')).status === 400, 1000);
  });

  it('recompiles the configs that name a guardrail file when it changes', async () => {
    expect((await chat(serve.url, 'guarded', 'one two three four')).status).toBe(446);
    const before = (await (await fetch(`${serve.url}/v1/health`)).json()) as { configs: { revision: string } };
    await writeFile(join(dir, 'guardrails', 'short.json'), JSON.stringify({ checks: [{ id: 'default.wordCount', parameters: { maxWords: 10 } }], deny: true }));
    await until(async () => (await chat(serve.url, 'guarded', 'one two three four')).status === 200, 1000);
    const after = (await (await fetch(`${serve.url}/v1/health`)).json()) as { status: string; configs: { revision: string; files: number } };
    expect(after.status).toBe('ok');
    expect(after.configs.revision).not.toBe(before.configs.revision);
  });
});

describe('serve --no-watch', () => {
  it('reloads only on SIGHUP, which no longer ends the process', async () => {
    const mock = await startVendorMock({ label: 'hup' });
    const dir = await mkdtemp(join(tmpdir(), 'gateway-sighup-'));
    await mkdir(join(dir, 'configs'));
    const write = (maxWords: number) => writeFile(join(dir, 'configs', 'c.json'), JSON.stringify({ provider: 'vendor', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL, input_guardrails: [{ id: 'g', deny: true, 'default.wordCount': { maxWords } }] }));
    await write(1);
    const serve = await startServe({ GATEWAY_API_KEY: KEY, GATEWAY_REQUEST_LOG: 'off' }, join(dir, 'data'), ['--configs', join(dir, 'configs'), '--no-watch']);
    try {
      const status = async () => (await fetch(`${serve.url}/v1/chat/completions`, { method: 'POST', headers: { 'x-gateway-api-key': KEY, 'x-gateway-config': 'c', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'two words' }] }) })).status;
      expect(await status()).toBe(446);
      await write(5);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await status()).toBe(446);
      serve.child.kill('SIGHUP');
      const started = Date.now();
      while ((await status()) !== 200) {
        if (Date.now() - started > 1000) throw new Error('SIGHUP did not reload within 1 s');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(serve.child.exitCode).toBeNull();
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
      await mock.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
