// `gateway build`: the one-file bundle, copied alone into an empty folder (no node_modules anywhere
// above it), serves the configs it was built with: the official SDK routes through it to the
// bundle's own mock provider, streamed and not; its request log (a worker thread) is readable; a
// `${NAME}` reference resolves when it starts and its value is in no artifact; a named guardrail it
// carries denies, and so does a jsonSchema check (Ajv, loaded on first use); what it leaves out says so.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuild } from '../../compiler/cli/build.ts';
import { freePort, type ServeProcess, startServe } from '../e2e/serve-processes.ts';
import { capturedOutput } from '../support/captured-output.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const KEY = 'bundle-admin-key';
const SECRET = `sk-build-secret-${process.pid}-4242`;


function run(file: string, args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [file, ...args], { cwd });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('gateway build', () => {
  let work: string;
  let empty: string;
  let bundle: string;
  let mock: ChildProcess;
  let serve: ServeProcess;
  let built: { stdout: string; stderr: string; result: number };
  let mockPort: number;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'gateway-build-'));
    empty = await mkdtemp(join(tmpdir(), 'gateway-bundle-run-'));
    const port = await freePort();
    mockPort = port;
    await mkdir(join(work, 'configs'));
    await mkdir(join(work, 'guardrails'));
    await writeFile(join(work, 'configs', 'mock.json'), JSON.stringify({ provider: 'vendor', api_key: '${BUILD_TEST_KEY}', custom_host: `http://127.0.0.1:${port}/v1` }));
    await writeFile(join(work, 'configs', 'guarded.json'), JSON.stringify({ provider: 'vendor', api_key: '${BUILD_TEST_KEY}', custom_host: `http://127.0.0.1:${port}/v1`, input_guardrails: ['no-pii'] }));
    // A jsonSchema check: Ajv's compiler, loaded only when such a schema is compiled, must be in the file too.
    await writeFile(join(work, 'configs', 'json-only.json'), JSON.stringify({
      provider: 'vendor', api_key: '${BUILD_TEST_KEY}', custom_host: `http://127.0.0.1:${port}/v1`,
      output_guardrails: [{ id: 'json-answer', deny: true, 'default.jsonSchema': { schema: { type: 'object', required: ['answer'] } } }],
    }));
    await copyFile(join(ROOT, 'examples/guardrails/no-pii.json'), join(work, 'guardrails', 'no-pii.json'));
    process.env.BUILD_TEST_KEY = SECRET;
    try {
      built = await capturedOutput(() => runBuild(['--configs', join(work, 'configs'), '--out', join(work, 'dist')]));
    } finally {
      delete process.env.BUILD_TEST_KEY;
    }
    expect(built.result, built.stderr).toBe(0);
    bundle = join(empty, 'gateway.mjs');
    await copyFile(join(work, 'dist', 'gateway.mjs'), bundle);
    mock = spawn(process.execPath, [bundle, 'mock-provider', '--port', String(port)], { cwd: empty });
    await new Promise<void>((ready, fail) => {
      let out = '';
      mock.stdout!.on('data', (chunk) => {
        out += chunk;
        if (out.includes('mock provider listening')) ready();
      });
      mock.on('exit', (code) => fail(new Error(`mock-provider from the bundle exited with ${code}`)));
    });
    // The writer thread, whatever the CPUs here: its code is carried inside the file.
    serve = await startServe({ GATEWAY_API_KEY: KEY, BUILD_TEST_KEY: SECRET, GATEWAY_LOG_WRITER: 'thread' }, join(empty, 'data'), [], { file: bundle, cwd: empty });
  }, 120_000);

  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await serve?.exited;
    mock?.kill('SIGTERM');
    await rm(work, { recursive: true, force: true });
    await rm(empty, { recursive: true, force: true });
  });

  it('prints its size under the 3 MB target, what it carries and what it leaves out', async () => {
    expect(built.stdout).toMatch(/gateway\.mjs {2}\d+\.\d\d MB, with .*gateway\.mjs\.map/);
    expect(built.stdout).not.toContain('over the 3 MB target');
    expect(built.stdout).toContain('carries 3 config(s) and 1 guardrail(s): guarded, json-only, mock');
    expect(built.stdout).toContain('usearch');
    expect(built.stderr).toContain('bundling the gateway');
    const map = JSON.parse(await readFile(join(work, 'dist', 'gateway.mjs.map'), 'utf8')) as { sources: string[] };
    expect(map.sources.some((source) => source.endsWith('runtime/router/router-runtime.ts'))).toBe(true);
  });

  it('serves its configs from an empty folder: the SDK routes through it, streamed and not', async () => {
    const client = new OpenAI({ baseURL: `${serve.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': KEY, 'x-gateway-config': 'mock', 'x-gateway-trace-id': 'bundle-trace' } });
    const completion = await client.chat.completions.create({ model: 'mock-chat', messages: [{ role: 'user', content: 'Hello bundle' }] });
    expect(completion.choices[0].message.content).toBe('[mock] Hello bundle');
    const stream = await client.chat.completions.create({ model: 'mock-chat', stream: true, messages: [{ role: 'user', content: 'streamed from one file' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('[mock] streamed from one file');
    const embedding = await client.embeddings.create({ model: 'mock-embed', input: 'x' });
    expect(embedding.data[0].embedding).toHaveLength(64);

    // The request log's writer is a worker thread carried inside the file.
    let records: { data: unknown[] } = { data: [] };
    for (let i = 0; i < 50 && records.data.length < 3; i++) {
      await new Promise((r) => setTimeout(r, 100));
      records = (await (await fetch(`${serve.url}/v1/logs?trace_id=bundle-trace`, { headers: { 'x-gateway-api-key': KEY } })).json()) as { data: unknown[] };
    }
    expect(records.data).toHaveLength(3);
  });

  it('runs the demo from an empty folder: the configs it carries, beside a mock provider of its own', async () => {
    const [port, demoMockPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, [bundle, 'demo', '--port', String(port), '--mock-port', String(demoMockPort), '--data', join(empty, 'demo-data')], { cwd: empty, env: { ...process.env, BUILD_TEST_KEY: SECRET, GATEWAY_API_KEY: '' } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      for (let i = 0; i < 200 && !out.includes('gateway listening on'); i++) await new Promise((r) => setTimeout(r, 50));
      expect(out).toContain('route a request through the config "mock" this build carries');
      const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': 'dev-key', 'x-gateway-config': 'mock', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content: 'Hello demo' }] }),
      });
      expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe('[mock] Hello demo');
      expect((await fetch(`http://127.0.0.1:${demoMockPort}/v1/models`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('carries its named guardrails, and resolves ${NAME} at start without writing the value anywhere', async () => {
    const denied = await fetch(`${serve.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': KEY, 'x-gateway-config': 'guarded', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content: 'my number is 123-45-6789' }] }),
    });
    expect(denied.status).toBe(446);
    expect(((await denied.json()) as { error: { code: string } }).error.code).toBe('denied_by_guardrail');
    // The mock's answer is not JSON: the output check compiled its schema with the bundled Ajv and denies it.
    const notJson = await fetch(`${serve.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': KEY, 'x-gateway-config': 'json-only', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content: 'answer in prose' }] }),
    });
    expect(notJson.status).toBe(446);
    // JSON to judge: the validation runs on its thread, which the file starts from itself.
    const inline = JSON.stringify({
      provider: 'vendor', api_key: 'mock', custom_host: `http://127.0.0.1:${mockPort}/v1`,
      input_guardrails: [{ id: 'shape', deny: true, 'default.jsonSchema': { schema: { type: 'object', required: ['answer'] } } }],
    });
    for (const [content, status] of [['{"answer": 42}', 200], ['{"other": 42}', 446]] as const) {
      const judged = await fetch(`${serve.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': KEY, 'x-gateway-config': inline, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content }] }),
      });
      expect(judged.status, await judged.text()).toBe(status);
    }
    const configs = await (await fetch(`${serve.url}/v1/configs`, { headers: { 'x-gateway-api-key': KEY } })).text();
    expect(configs).toContain('guarded');
    for (const text of [await readFile(bundle, 'utf8'), await readFile(join(work, 'dist', 'gateway.mjs.map'), 'utf8'), configs, built.stdout, built.stderr]) {
      expect(text).not.toContain(SECRET);
    }
  });

  it('says that compile, explain, diff and build need the package, and that a semantic cache needs usearch', async () => {
    const compile = await run(bundle, ['compile', '--configs', '.'], empty);
    expect(compile.code).toBe(2);
    expect(compile.stderr).toContain('not in the one-file build');
    const semantic = startServe({ GATEWAY_API_KEY: KEY, BUILD_TEST_KEY: SECRET, GATEWAY_SEMANTIC_CACHE_EMBEDDINGS: 'mock', GATEWAY_SEMANTIC_CACHE_MODEL: 'mock-embed' }, join(empty, 'data-semantic'), [], { file: bundle, cwd: empty });
    await expect(semantic).rejects.toThrow(/usearch/);
  });

  it('runs a semantic cache with usearch installed beside it: the index thread is carried inside the file', { timeout: 60_000 }, async () => {
    const beside = await mkdtemp(join(tmpdir(), 'gateway-bundle-usearch-'));
    try {
      await copyFile(bundle, join(beside, 'gateway.mjs'));
      await mkdir(join(beside, 'node_modules'));
      await symlink(join(ROOT, 'node_modules', 'usearch'), join(beside, 'node_modules', 'usearch'));
      const host = `http://127.0.0.1:${mockPort}/v1`;
      const semantic = await startServe({
        GATEWAY_API_KEY: KEY, BUILD_TEST_KEY: SECRET, GATEWAY_SEMANTIC_CACHE_MODEL: 'mock-embed', GATEWAY_SEMANTIC_CACHE_THRESHOLD: '0.9',
        GATEWAY_SEMANTIC_CACHE_EMBEDDINGS: JSON.stringify({ provider: 'vendor', api_key: 'mock', custom_host: host }),
      }, join(beside, 'data'), [], { file: join(beside, 'gateway.mjs'), cwd: beside });
      try {
        const config = JSON.stringify({ provider: 'vendor', api_key: 'mock', custom_host: host, cache: { mode: 'semantic' } });
        const ask = async (content: string) => (await fetch(`${semantic.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'x-gateway-api-key': KEY, 'x-gateway-config': config, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content }] }),
        })).headers.get('x-gateway-cache-status');
        expect(await ask('What is the capital of France?')).toBe('SEMANTIC MISS');
        expect(await ask('what is the capital of France, please?')).toBe('SEMANTIC HIT');
      } finally {
        semantic.child.kill('SIGTERM');
        await semantic.exited;
      }
    } finally {
      await rm(beside, { recursive: true, force: true });
    }
  });

  it('fails the build on an invalid config, located, and writes nothing', async () => {
    const broken = join(work, 'broken');
    await mkdir(broken);
    await writeFile(join(broken, 'bad.json'), '{\n  "provider": "opnai", "api_key": "x"\n}');
    const failed = await capturedOutput(() => runBuild(['--configs', broken, '--out', join(work, 'dist-broken')]));
    expect(failed.result).toBe(1);
    expect(failed.stderr).toMatch(/bad\.json:2:\d+ {2}CFG_UNKNOWN_PROVIDER/);
    await expect(readFile(join(work, 'dist-broken', 'gateway.mjs'))).rejects.toThrow();
  });
});
