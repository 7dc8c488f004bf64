// Start-up and shutdown: health before ready, graceful drain of in-flight requests, the drain
// deadline, and the key ring refreshing from the store while serving.
import { Agent } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiKeyRing } from '../../runtime/server/auth.ts';
import { createHealthHandler } from '../../runtime/server/health.ts';
import { sendJson } from '../../runtime/server/respond.ts';
import { createGateway } from '../../runtime/server/server.ts';
import { openStore } from '../../runtime/store/open-store.ts';
import { memoryLogger, route, send, startTestGateway, tempDataDir, TEST_KEY } from './helpers.ts';

function refused(url: string): Promise<boolean> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(true));
  });
}

describe('readiness', () => {
  it('answers health with 503 not_ready until marked ready', async () => {
    const data = tempDataDir();
    const store = openStore(data.dir);
    const logger = memoryLogger();
    const gateway = createGateway({
      routes: [route({ operationId: 'getHealth', method: 'GET', path: '/v1/health', handler: 'health.get', pattern: '^/v1/health$', auth: 'none' })],
      keyRing: new ApiKeyRing(store.apiKeys),
      logger,
    });
    gateway.registerHandler('health.get', createHealthHandler(gateway));
    const { port } = await gateway.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${port}`;
    const early = await send(url, { path: '/v1/health' });
    expect(early.status).toBe(503);
    expect(early.json().error.code).toBe('not_ready');
    gateway.markReady();
    expect((await send(url, { path: '/v1/health' })).status).toBe(200);
    await gateway.close();
    await store.close();
    data.remove();
  });

  it('refuses handlers for names no route uses, and double registration', async () => {
    const gw = await startTestGateway();
    expect(() => gw.registerHandler('inference.chatt', async () => {})).toThrow(/no route uses/);
    expect(() => gw.registerHandler('health.get', async () => {})).toThrow(/already registered/);
    await gw.close();
  });

  it('refuses a route table that names a validator it was not given', async () => {
    await expect(
      startTestGateway({
        routes: [route({ operationId: 'x', method: 'POST', path: '/v1/x', handler: 'x', pattern: '^/v1/x$', bodyValidator: 'validateNothing' })],
      }),
    ).rejects.toThrow(/validateNothing/);
  });
});

describe('client connections', () => {
  // Linux's table of TCP sockets shows which have a keepalive timer (`tr` 2); elsewhere there is nothing to read.
  it.runIf(existsSync('/proc/net/tcp'))('keep TCP keepalive on, so a client gone without a FIN is found', async () => {
    const gateway = await startTestGateway();
    const port = Number(new URL(gateway.url).port);
    const client = connect(port, '127.0.0.1');
    await once(client, 'connect');
    client.write('GET /v1/health HTTP/1.1\r\nhost: gateway\r\n\r\n');
    await once(client, 'data');
    const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');
    // The gateway's end of this connection: local port the gateway's, remote port the client's.
    const row = readFileSync('/proc/net/tcp', 'utf8').split('\n').map((line) => line.trim().split(/\s+/))
      .find((fields) => fields[1]?.endsWith(`:${hex(port)}`) && fields[2]?.endsWith(`:${hex(client.localPort!)}`));
    expect(row, 'the connection in /proc/net/tcp').toBeDefined();
    // `tr:tm->when`: timer 2 is the keepalive timer (0: no timer at all on an idle socket).
    expect(row![5].split(':')[0]).toBe('02');
    client.destroy();
    await gateway.close();
  });
});

describe('graceful close', () => {
  it('stops accepting, lets in-flight requests finish with connection: close, then resolves', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const gw = await startTestGateway({
      async setup({ gateway }) {
        gateway.registerHandler('inference.models', async (ctx) => {
          entered();
          await released;
          sendJson(ctx.res, 200, { data: [] });
        });
      },
    });
    const agent = new Agent({ keepAlive: true });
    const pending = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const url = new URL(gw.url);
      import('node:http').then(({ request }) => {
        const req = request({ host: url.hostname, port: url.port, path: '/v1/models', headers: { 'x-gateway-api-key': TEST_KEY }, agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
        });
        req.on('error', reject);
        req.end();
      }, reject);
    });
    await inHandler;
    let closed = false;
    const closing = gw.close().then(() => (closed = true));
    await expect.poll(() => refused(gw.url)).toBe(true);
    expect(closed).toBe(false);
    release();
    expect(await pending).toEqual({ status: 200, connection: 'close' });
    await closing;
    agent.destroy();
  });

  it('cuts requests still running at the drain deadline and aborts their signal', async () => {
    let aborted!: () => void;
    const wasAborted = new Promise<void>((resolve) => (aborted = resolve));
    const gw = await startTestGateway({
      timeouts: { drainMs: 100 },
      async setup({ gateway }) {
        gateway.registerHandler('inference.models', async (ctx) => {
          ctx.res.writeHead(200, { 'content-type': 'text/event-stream' });
          ctx.res.write('data: {}\n\n');
          await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
          aborted();
        });
      },
    });
    const url = new URL(gw.url);
    const socket = connect(Number(url.port), '127.0.0.1');
    await new Promise<void>((resolve) => {
      socket.once('data', () => resolve());
      socket.write(`GET /v1/models HTTP/1.1\r\nhost: x\r\nx-gateway-api-key: ${TEST_KEY}\r\n\r\n`);
    });
    const started = performance.now();
    await gw.close();
    expect(performance.now() - started).toBeLessThan(2000);
    await wasAborted;
    socket.destroy();
  });
});

describe('key refresh', () => {
  it('picks up keys created in the store while serving', async () => {
    const gw = await startTestGateway({ storePollMs: 30 });
    const { key } = await gw.store.apiKeys.create({ name: 'late' });
    await expect.poll(async () => (await send(gw.url, { path: '/v1/models', headers: { 'x-gateway-api-key': key } })).status).not.toBe(401);
    await gw.close();
  });
});
