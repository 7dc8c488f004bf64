// discard() releases the connection whatever state the body is in, so retries and fallbacks never
// starve a pool. With connections: 1, any leak would hang the next request.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startVendorMock } from '../mocks/vendor/index.ts';
import type { VendorMock } from '../mocks/vendor/index.ts';
import { closeAllPools, configurePools, DEFAULT_POOL_SETTINGS } from '../../runtime/upstream/pools.ts';
import { DISCARD_DRAIN_LIMIT, DISCARD_DRAIN_TIMEOUT_MS, send } from '../../runtime/upstream/send.ts';
import { isUpstreamError } from '../../runtime/upstream/errors.ts';
import type { UpstreamResponse } from '../../runtime/upstream/types.ts';
import { bigEmbeddings, chatStream, listModels } from './upstream-requests.ts';

let mock: VendorMock;

beforeAll(async () => {
  mock = await startVendorMock();
});

beforeEach(() => {
  configurePools({ connections: 1 });
});

afterEach(async () => {
  await closeAllPools();
  configurePools(DEFAULT_POOL_SETTINGS);
});

afterAll(async () => {
  await mock.close();
});

/** The next request must be served promptly: the only connection is free again. */
async function poolServesNext(): Promise<number> {
  const timeout = AbortSignal.timeout(2000);
  const response = await send(listModels(mock.url, timeout));
  expect(response.status).toBe(200);
  await response.readAll();
  return mock.requests.at(-1)!.remotePort;
}

function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

describe('discard', () => {
  it('frees the connection held by a stalled stream', async () => {
    mock.script({ stallAfter: 2 });
    const stalled = await send(chatStream(mock.url, 50));
    stalled.discard();
    await poolServesNext();
    expect(await mock.requests.at(-2)!.outcome).toBe('client-closed');
  });

  it('drains a small error body and reuses the same socket', async () => {
    mock.script({ status: 500 });
    const failed = await send(listModels(mock.url));
    expect(failed.status).toBe(500);
    const port = mock.requests.at(-1)!.remotePort;
    failed.discard();
    expect(await poolServesNext()).toBe(port);
    expect(await mock.requests.at(-2)!.outcome).toBe('finished');
  });

  it('gives up draining a small body that stalls', async () => {
    mock.script({ path: '/v1/models', stallAfter: 5 });
    const stalled = await send(listModels(mock.url));
    expect(Number(stalled.headers['content-length'])).toBeLessThan(DISCARD_DRAIN_LIMIT);
    const started = Date.now();
    stalled.discard();
    expect(await mock.requests.at(-1)!.outcome).toBe('client-closed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(DISCARD_DRAIN_TIMEOUT_MS - 50);
    await poolServesNext();
  });

  it('aborts a body longer than the drain limit instead of reading it', async () => {
    const big = await send(bigEmbeddings(mock.url, 8));
    expect(Number(big.headers['content-length'])).toBeGreaterThan(DISCARD_DRAIN_LIMIT);
    const port = mock.requests.at(-1)!.remotePort;
    big.discard();
    expect(await poolServesNext()).not.toBe(port);
  });

  it('interrupts a body being read, and the reader learns why', async () => {
    mock.script({ stallAfter: 2 });
    const response = await send(chatStream(mock.url, 50));
    const reading = rejection(response.readAll());
    await new Promise((r) => setTimeout(r, 30));
    response.discard();
    const error = await reading;
    expect(isUpstreamError(error) && error.code).toBe('upstream_discarded');
    await poolServesNext();
  });

  it('is safe to call twice, and after the body was read', async () => {
    const read = await send(listModels(mock.url));
    await read.readAll();
    read.discard();
    read.discard();
    const dropped = await send(listModels(mock.url));
    dropped.discard();
    dropped.discard();
    await poolServesNext();
  });

  it('refuses a second consumer', async () => {
    const response: UpstreamResponse = await send(listModels(mock.url));
    response.discard();
    await expect(response.readAll()).rejects.toThrow(/discarded/);
    const other = await send(listModels(mock.url));
    await other.readAll();
    await expect(other.readAll()).rejects.toThrow(/consumed/);
  });
});
