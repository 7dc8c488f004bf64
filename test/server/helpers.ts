// Shared test plumbing: a real gateway on a free loopback port, a plain node:http client, and raw
// sockets for requests no well-behaved client would send.
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GatewayLogger } from '../../runtime/core/log.ts';
import type { RouteSpec } from '../../runtime/server/match.ts';
import { type RunningGateway, type StartGatewayOptions, startGateway } from '../../runtime/server/start.ts';

export function tempDataDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A logger that keeps what it is given, so tests can assert on (and against) log content. */
export function memoryLogger(): GatewayLogger & { lines: Array<{ level: string; event: string; fields?: Record<string, unknown> }> } {
  const lines: Array<{ level: string; event: string; fields?: Record<string, unknown> }> = [];
  return {
    lines,
    info: (event, fields) => lines.push({ level: 'info', event, fields }),
    warn: (event, fields) => lines.push({ level: 'warn', event, fields }),
    error: (event, fields) => lines.push({ level: 'error', event, fields }),
  };
}

export function route(overrides: Partial<RouteSpec> & Pick<RouteSpec, 'operationId' | 'method' | 'path' | 'handler' | 'pattern'>): RouteSpec {
  return { auth: 'api_key', plane: 'data', validateBody: 'never', ...overrides };
}

export const TEST_KEY = 'gw_test-key-0123456789abcdefghijklmnopqrstuvwxyz';

export async function startTestGateway(options: StartGatewayOptions = {}): Promise<RunningGateway & { dataDir: string; logger: ReturnType<typeof memoryLogger> }> {
  const data = tempDataDir();
  const logger = memoryLogger();
  const running = await startGateway({ port: 0, host: '127.0.0.1', dataDir: data.dir, seedApiKey: TEST_KEY, logger, ...options });
  const close = running.close.bind(running);
  return Object.assign(running, {
    dataDir: data.dir,
    logger,
    async close() {
      await close();
      data.remove();
    },
  });
}

export interface TestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json(): any;
}

export function send(
  baseUrl: string,
  options: { method?: string; path: string; headers?: Record<string, string | number>; body?: string | Buffer },
): Promise<TestResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: options.method ?? 'GET', path: options.path, headers: options.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * Writes raw bytes and collects whatever comes back until the server closes or `waitMs` passes, or
 * with `quietMs` until the server went that long quiet after its first bytes (a WebSocket session, or
 * a connection kept alive).
 */
export function sendRaw(baseUrl: string, bytes: Buffer | string, options: { waitMs?: number; quietMs?: number; endAfterWrite?: boolean } = {}): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    let quiet: NodeJS.Timeout | undefined;
    const done = (): void => {
      clearTimeout(timer);
      clearTimeout(quiet);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    const timer = setTimeout(done, options.waitMs ?? 1000);
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      if (options.quietMs === undefined) return;
      clearTimeout(quiet);
      quiet = setTimeout(done, options.quietMs);
    });
    socket.on('error', done);
    socket.on('close', done);
    socket.write(bytes, () => {
      if (options.endAfterWrite === true) socket.end();
    });
  });
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Asserts the gateway error body shape and returns its `error` object. */
export function errorOf(res: TestResponse): { message: string; type: string; param: string | null; code: string } {
  const body = res.json();
  if (typeof body?.error?.message !== 'string' || typeof body.error.type !== 'string' || typeof body.error.code !== 'string' || !('param' in body.error)) {
    throw new Error(`not a gateway error body: ${res.text}`);
  }
  return body.error;
}
