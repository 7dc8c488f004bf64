// `gateway contract-check` as a user runs it: a real process against a real `gateway serve`. A clean
// run exits 0; behind a proxy that breaks one answer (the configs list loses `total`, and an error
// body loses its code) it exits 1 and names the operations and JSON pointers.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeProcess, startServe } from '../e2e/serve-processes.ts';

const BIN = resolve(import.meta.dirname, '../../bin/gateway.js');
const KEY = 'gw_contract-check-admin-0123456789abcdef';

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, 'contract-check', ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
  });
}

/** Forwards to the gateway; rewrites the configs list and the missing-config 404 so they break their schemas. */
function breakingProxy(target: string): Server {
  const upstream = new URL(target);
  return createServer((req, res) => {
    const forwarded = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        let body = Buffer.concat(chunks);
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        if (req.method === 'GET' && path === '/v1/configs') {
          const list = JSON.parse(body.toString()) as Record<string, unknown>;
          delete list.total;
          body = Buffer.from(JSON.stringify(list));
        } else if (answer.statusCode === 404 && path.startsWith('/v1/configs/contract-check-missing')) {
          body = Buffer.from(JSON.stringify({ error: { message: 'gone' } }));
        }
        const headers = { ...answer.headers, 'content-length': String(body.length) };
        delete headers['transfer-encoding'];
        res.writeHead(answer.statusCode ?? 502, headers).end(body);
      });
    });
    req.pipe(forwarded);
  });
}

describe('gateway contract-check', () => {
  let serve: ServeProcess;
  let dir: string;
  let proxy: Server;
  let proxyUrl: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gateway-contract-check-'));
    serve = await startServe({ GATEWAY_API_KEY: KEY }, join(dir, 'data'));
    proxy = breakingProxy(serve.url);
    await new Promise<void>((ready) => proxy.listen(0, '127.0.0.1', ready));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await serve?.exited;
    await new Promise<void>((closed) => (proxy === undefined ? closed() : proxy.close(() => closed())));
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('reports a clean run against a fresh gateway, read-only and with --write', async () => {
    const readOnly = await run(['--base-url', serve.url, '--api-key', KEY]);
    expect(readOnly.code, readOnly.stdout + readOnly.stderr).toBe(0);
    expect(readOnly.stdout).toMatch(/^configs\.list\s+ok/m);
    expect(readOnly.stdout).toMatch(/operations checked: \d+ ok, 0 violation, 0 error/);
    const write = await run(['--base-url', serve.url, '--api-key', KEY, '--write', '--json']);
    expect(write.code, write.stdout + write.stderr).toBe(0);
    const report = JSON.parse(write.stdout) as { ok: boolean; results: { operation: string; outcome: string }[] };
    expect(report.ok).toBe(true);
    expect(report.results).toContainEqual(expect.objectContaining({ operation: 'policies.rateLimits.archive', outcome: 'ok' }));
  });

  it('catches a broken answer and a broken error body, naming the pointer; exit 1', async () => {
    const broken = await run(['--base-url', proxyUrl, '--api-key', KEY]);
    expect(broken.code, broken.stdout + broken.stderr).toBe(1);
    expect(broken.stdout).toMatch(/^configs\.list\s+violation\s+\/ must have required property 'total'/m);
    expect(broken.stdout).toMatch(/^configs\.retrieve \(missing\)\s+violation\s+404 error body: \/error must have required property/m);
    expect(broken.stdout).toMatch(/^health\.get\s+ok/m);
  });

  it('explains itself, and refuses a run without a gateway to check (exit 2)', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--write');
    const missing = await run(['--api-key', KEY]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--base-url and --api-key are required');
  });
});
