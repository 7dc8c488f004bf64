// Failures before the status line are typed, so the router maps them without string matching:
// connection errors → 502 provider_unreachable, undici's safety timeouts → 408, bad origins → 500.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { startVendorMock } from '../mocks/vendor/index.ts';
import type { VendorMock } from '../mocks/vendor/index.ts';
import { closeAllPools, configurePools, DEFAULT_POOL_SETTINGS } from '../../runtime/upstream/pools.ts';
import { send } from '../../runtime/upstream/send.ts';
import { isConnectionError, isRequestError, isUpstreamTimeout, UpstreamConnectionError } from '../../runtime/upstream/errors.ts';
import { listModels } from './upstream-requests.ts';

let mock: VendorMock;

beforeAll(async () => {
  mock = await startVendorMock();
});

afterEach(async () => {
  await closeAllPools();
  configurePools(DEFAULT_POOL_SETTINGS);
});

afterAll(async () => {
  await mock.close();
});

async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

describe('errors before the status line', () => {
  it('maps a refused connection to UpstreamConnectionError', async () => {
    const error = await failureOf(send(listModels(`http://127.0.0.1:${await closedPort()}`)));
    expect(isConnectionError(error)).toBe(true);
    expect(error).toBeInstanceOf(UpstreamConnectionError);
    expect((error as UpstreamConnectionError).code).toBe('upstream_connection_failed');
    expect(((error as Error).cause as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it('says what a "bad response" is: an unsolicited 100 Continue, which the HTTP client refuses', async () => {
    const server = createServer((socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const error = await failureOf(send(listModels(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
      expect(error).toBeInstanceOf(UpstreamConnectionError);
      expect((error as Error).message).toContain('100 Continue');
    } finally {
      server.close();
    }
  });

  it('maps a provider hanging up before answering to UpstreamConnectionError', async () => {
    mock.script({ hangUp: true });
    const error = await failureOf(send(listModels(mock.url)));
    expect(isConnectionError(error)).toBe(true);
  });

  it('maps a provider that never sends headers to UpstreamTimeoutError', async () => {
    configurePools({ headersTimeoutMs: 200 });
    mock.script({ delayMs: 1500 });
    const error = await failureOf(send(listModels(mock.url)));
    expect(isUpstreamTimeout(error)).toBe(true);
    expect(isConnectionError(error)).toBe(false);
  });

  it.each(['not a url', 'ftp://127.0.0.1:21', 'file:///etc/passwd'])('rejects the origin %j as a request error', async (origin) => {
    const error = await failureOf(send(listModels(origin)));
    expect(isRequestError(error)).toBe(true);
  });

  it('keeps serving the origin after a connection error', async () => {
    mock.script({ hangUp: true });
    await failureOf(send(listModels(mock.url)));
    const response = await send(listModels(mock.url));
    expect(response.status).toBe(200);
    expect(JSON.parse((await response.readAll()).toString()).object).toBe('list');
  });
});
