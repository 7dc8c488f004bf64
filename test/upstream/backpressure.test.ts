// A client that stops reading must stop the provider too: forwardTo pauses the upstream when the
// client response is full, so bytes in flight stay bounded by socket buffers, not by stream size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { once } from 'node:events';
import { startVendorMock, VENDOR_MOCK_KEY } from '../mocks/vendor/index.ts';
import type { RecordedRequest, VendorMock } from '../mocks/vendor/index.ts';
import { closeAllPools } from '../../runtime/upstream/pools.ts';
import { startProxy } from './proxy-harness.ts';
import type { Proxy } from './proxy-harness.ts';

let mock: VendorMock;
let proxy: Proxy;

beforeAll(async () => {
  mock = await startVendorMock();
  proxy = await startProxy(mock.url);
});

afterAll(async () => {
  await proxy.close();
  await closeAllPools();
  await mock.close();
});

/** Resolves once the producer has written nothing new for `quietMs`. */
async function producerSettled(seen: RecordedRequest, quietMs: number): Promise<number> {
  let last = -1;
  while (seen.responseBytes !== last) {
    last = seen.responseBytes;
    await new Promise((resolve) => setTimeout(resolve, quietMs));
  }
  return last;
}

function streamRequest(url: string, words: number): Promise<IncomingMessage> {
  const prompt = Array.from({ length: words }, (_, i) => `word${i}`).join(' ');
  const req = httpRequest(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${VENDOR_MOCK_KEY}`, 'content-type': 'application/json' },
  });
  req.end(JSON.stringify({ model: 'vendor-chat-1', messages: [{ role: 'user', content: prompt }], stream: true }));
  return once(req, 'response').then(([res]) => res as IncomingMessage);
}

describe('backpressure', () => {
  it('pauses the provider while the client does not read, then delivers every byte', async () => {
    const words = 160_000; // about 40 MB of SSE, far beyond what loopback sockets can buffer
    const res = await streamRequest(proxy.url, words);
    res.pause();
    const seen = mock.requests.at(-1)!;
    const heapBefore = process.memoryUsage().arrayBuffers;
    const producedWhilePaused = await producerSettled(seen, 250);
    const heapGrowth = process.memoryUsage().arrayBuffers - heapBefore;

    let received = 0;
    let tail = '';
    res.on('data', (chunk: Buffer) => {
      received += chunk.length;
      tail = (tail + chunk.toString('latin1')).slice(-32);
    });
    res.resume();
    await once(res, 'end');

    expect(seen.responseBytes).toBeGreaterThan(35_000_000);
    // In flight while paused: kernel socket buffers on both hops plus node:http high-water marks
    // (about 9 MB on Linux loopback). Without backpressure the whole stream lands in the heap.
    expect(producedWhilePaused).toBeLessThan(seen.responseBytes * 0.6);
    expect(seen.drainWaits).toBeGreaterThan(0);
    expect(heapGrowth).toBeLessThan(16 * 1024 * 1024);
    expect(received).toBe(seen.responseBytes);
    expect(tail.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(await seen.outcome).toBe('finished');
  }, 30_000);

  it('pauses again after every resume (the drain handler keeps working)', async () => {
    const res = await streamRequest(proxy.url, 160_000);
    const seen = mock.requests.at(-1)!;
    let received = 0;
    let target = 0;
    res.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received >= target) res.pause();
    });
    res.pause();
    const checkpoints: number[] = [];
    for (let cycle = 0; cycle < 3; cycle++) {
      const produced = await producerSettled(seen, 200);
      checkpoints.push(produced);
      expect(produced - received).toBeLessThan(20 * 1024 * 1024);
      target = received + 4 * 1024 * 1024;
      res.resume();
      while (received < target) await once(res, 'data');
    }
    const produced = await producerSettled(seen, 200);
    checkpoints.push(produced);
    for (let i = 1; i < checkpoints.length; i++) expect(checkpoints[i]).toBeGreaterThan(checkpoints[i - 1]);
    expect(produced).toBeLessThan(35_000_000);
    target = Infinity;
    res.resume();
    await once(res, 'end');
    expect(received).toBe(seen.responseBytes);
  }, 30_000);
});
