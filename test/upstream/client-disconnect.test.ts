// When the client goes away, the provider request goes with it: no orphaned generations, no
// unhandled rejections, no ERR_STREAM_UNABLE_TO_PIPE. vitest fails the run on any unhandled error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { once } from 'node:events';
import { startVendorMock, VENDOR_MOCK_KEY } from '../mocks/vendor/index.ts';
import type { VendorMock } from '../mocks/vendor/index.ts';
import { closeAllPools } from '../../runtime/upstream/pools.ts';
import { isClientClosed } from '../../runtime/upstream/errors.ts';
import { startProxy } from './proxy-harness.ts';
import type { Proxy } from './proxy-harness.ts';

let mock: VendorMock;
/** Aborts the upstream signal when the client leaves, like the real server. */
let proxy: Proxy;
/** Leaves the signal alone, so forwardTo's own watch on the client response must notice. */
let unsignalled: Proxy;

beforeAll(async () => {
  mock = await startVendorMock();
  proxy = await startProxy(mock.url);
  unsignalled = await startProxy(mock.url, { abortOnClientClose: false });
});

afterAll(async () => {
  await proxy.close();
  await unsignalled.close();
  await closeAllPools();
  await mock.close();
});

function startStream(through: Proxy, words: number): { response: Promise<IncomingMessage>; destroy(): void } {
  const content = Array.from({ length: words }, (_, i) => `w${i}`).join(' ');
  const req = httpRequest(`${through.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${VENDOR_MOCK_KEY}` },
  });
  req.on('error', () => {}); // the test destroys it on purpose
  req.end(JSON.stringify({ model: 'vendor-chat-1', messages: [{ role: 'user', content }], stream: true }));
  const response = once(req, 'response').then(([res]) => {
    (res as IncomingMessage).on('error', () => {});
    return res as IncomingMessage;
  });
  response.catch(() => {}); // rejects when destroyed before the status line; not every test awaits it
  return { response, destroy: () => req.destroy() };
}

async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const isClientGone = (error: unknown): boolean => error instanceof Error && error.message === 'client went away';

describe('client disconnect', () => {
  for (const [name, through, expected] of [
    ['the request signal', () => proxy, isClientGone],
    ["forwardTo's own client watch", () => unsignalled, isClientClosed],
  ] as const) {
    describe(`noticed through ${name}`, () => {
      it('aborts the provider stream when the client leaves mid-stream', async () => {
        mock.script({ frameDelayMs: 10 }); // 2000 frames: 20 s if nobody stopped it
        const result = through().nextResult();
        const client = startStream(through(), 2000);
        const res = await client.response;
        await once(res, 'data');
        client.destroy();
        expect(await within(mock.requests.at(-1)!.outcome, 2000)).toBe('client-closed');
        const ended = await within(result, 2000);
        expect(ended.kind).toBe('forward-failed');
        expect(expected((ended as { error: unknown }).error)).toBe(true);
      });

      it('aborts a stalled provider stream that the gateway is paused on', async () => {
        mock.script({ stallAfter: 3 });
        const result = through().nextResult();
        const client = startStream(through(), 50);
        const res = await client.response;
        await once(res, 'data');
        client.destroy();
        expect(await within(mock.requests.at(-1)!.outcome, 2000)).toBe('client-closed');
        expect(expected(((await within(result, 2000)) as { error: unknown }).error)).toBe(true);
      });
    });
  }

  it('aborts the provider request when the client leaves before the status line', async () => {
    mock.script({ delayMs: 3000 });
    const result = proxy.nextResult();
    const before = mock.requests.length;
    const client = startStream(proxy, 5);
    while (mock.requests.length === before) await new Promise((r) => setTimeout(r, 10));
    const started = Date.now();
    client.destroy();
    expect(await within(mock.requests.at(-1)!.outcome, 2000)).toBe('client-closed');
    const ended = await within(result, 2000);
    expect(ended.kind).toBe('send-failed');
    expect(isClientGone((ended as { error: unknown }).error)).toBe(true);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
