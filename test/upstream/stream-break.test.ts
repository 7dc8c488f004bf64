// A provider body that breaks after the status line rejects the consumer with UpstreamBodyError,
// so the router can end the client stream with an error event instead of a silent truncation.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startVendorMock, VENDOR_MOCK_KEY } from '../mocks/vendor/index.ts';
import type { VendorMock } from '../mocks/vendor/index.ts';
import { closeAllPools, configurePools, DEFAULT_POOL_SETTINGS } from '../../runtime/upstream/pools.ts';
import { send } from '../../runtime/upstream/send.ts';
import { isBodyError } from '../../runtime/upstream/errors.ts';
import { startProxy } from './proxy-harness.ts';
import type { Proxy } from './proxy-harness.ts';
import { chatStream } from './upstream-requests.ts';

let mock: VendorMock;
let proxy: Proxy;

beforeAll(async () => {
  mock = await startVendorMock();
  proxy = await startProxy(mock.url);
});

afterEach(async () => {
  await closeAllPools();
  configurePools(DEFAULT_POOL_SETTINGS);
});

afterAll(async () => {
  await proxy.close();
  await mock.close();
});

describe('a provider stream that breaks mid-body', () => {
  it('rejects forwardTo after forwarding the frames that did arrive', async () => {
    mock.script({ breakAfter: 3 });
    const result = proxy.nextResult();
    const res = await request(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${VENDOR_MOCK_KEY}` },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'a b c d e f g' }], stream: true }),
    });
    expect(res.statusCode).toBe(200);
    let text = '';
    res.body.setEncoding('utf8');
    await expect(
      (async () => {
        for await (const chunk of res.body) text += chunk;
      })(),
    ).rejects.toThrow();
    expect(text.split('\n\n').filter((f) => f.startsWith('data: '))).toHaveLength(3);
    const ended = await result;
    expect(ended.kind).toBe('forward-failed');
    expect(isBodyError((ended as { error: unknown }).error)).toBe(true);
    expect(await mock.requests.at(-1)!.outcome).toBe('mock-destroyed');
  });

  it('rejects readAll with UpstreamBodyError', async () => {
    mock.script({ breakAfter: 2 });
    const response = await send(chatStream(mock.url, 20));
    expect(response.status).toBe(200);
    const error = await response.readAll().then(
      () => null,
      (e: unknown) => e,
    );
    expect(isBodyError(error)).toBe(true);
  });

  it('rejects a plain body cut short of its content-length', async () => {
    mock.script({ breakAfter: 10 });
    const response = await send({ ...chatStream(mock.url, 3), path: '/v1/models', method: 'GET', body: null });
    expect(response.headers['content-length']).toBeDefined();
    await expect(response.readAll()).rejects.toSatisfy(isBodyError);
  });

  it('rejects a stalled stream once the pool body timeout passes', async () => {
    configurePools({ bodyTimeoutMs: 300 });
    mock.script({ stallAfter: 2 });
    const started = Date.now();
    const response = await send(chatStream(mock.url, 20));
    const error = await response.readAll().then(
      () => null,
      (e: unknown) => e,
    );
    expect(isBodyError(error)).toBe(true);
    expect(((error as Error).cause as { code?: string }).code).toBe('UND_ERR_BODY_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('the first byte of a body (bodyBegun, what the transport waits for before an answer goes on)', () => {
  it('rejects with UpstreamBodyError when a stream breaks before its first frame', async () => {
    mock.script({ breakAfter: 0 });
    const response = await send(chatStream(mock.url, 20));
    expect(response.status).toBe(200);
    const error = await (response.bodyBegun!() ?? Promise.resolve()).then(() => null, (e: unknown) => e);
    expect(isBodyError(error)).toBe(true);
  });

  it('resolves once a byte is in, is null from then on, and leaves the whole body to read', async () => {
    const response = await send(chatStream(mock.url, 5));
    await response.bodyBegun!();
    expect(response.bodyBegun!()).toBeNull();
    const text = (await response.readAll()).toString();
    expect(text.startsWith('data: ')).toBe(true);
    expect(text).toContain('data: [DONE]');
  });

  it('waits past the bytes held so far with `after`, holds every byte once, and forwards them all (heldBody: a stream\'s start read before it goes on)', async () => {
    mock.script({ frameDelayMs: 30 });
    const response = await send(chatStream(mock.url, 4));
    await response.bodyBegun!();
    const first = Buffer.from(response.heldBody!());
    expect(first.length).toBeGreaterThan(0);
    const more = response.bodyBegun!(first.length);
    expect(more).not.toBeNull();
    await more;
    const held = response.heldBody!();
    expect(held.length).toBeGreaterThan(first.length);
    expect(held.subarray(0, first.length).equals(first)).toBe(true);
    const text = (await response.readAll()).toString();
    expect(text.startsWith(held.toString())).toBe(true);
    expect(text.split('data: [DONE]')).toHaveLength(2);
  });
});
