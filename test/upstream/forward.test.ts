// What the client receives through send() + forwardTo() is what the provider sent: status,
// end-to-end headers and body bytes, for JSON, SSE, binary audio and error answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { Client, request } from 'undici';
import { startVendorMock, speechBytes, VENDOR_MOCK_KEY } from '../mocks/vendor/index.ts';
import type { RecordedRequest, VendorMock } from '../mocks/vendor/index.ts';
import { closeAllPools } from '../../runtime/upstream/pools.ts';
import { startProxy } from './proxy-harness.ts';
import type { Proxy } from './proxy-harness.ts';

let mock: VendorMock;
let proxy: Proxy;
let rawClient: Client;
const auth = { authorization: `Bearer ${VENDOR_MOCK_KEY}` };
/** Set by whichever node:http server wrote the final hop, so they differ legitimately. */
const PER_HOP = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

beforeAll(async () => {
  mock = await startVendorMock({ label: 'fwd' });
  proxy = await startProxy(mock.url);
  rawClient = new Client(proxy.url);
});

afterAll(async () => {
  await rawClient.close();
  await proxy.close();
  await closeAllPools();
  await mock.close();
});

function endToEnd(headers: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !PER_HOP.has(name)));
}

function last(): RecordedRequest {
  return mock.requests.at(-1)!;
}

describe('forwarding through send().forwardTo()', () => {
  it('keeps a JSON completion exactly: status, headers, bytes', async () => {
    const result = proxy.nextResult();
    const res = await request(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'vendor-chat-1', messages: [{ role: 'user', content: 'hello world' }] }),
    });
    const bytes = Buffer.from(await res.body.arrayBuffer());
    const sent = last();
    expect(res.statusCode).toBe(sent.status);
    expect(endToEnd(res.headers)).toEqual(sent.responseHeaders);
    expect(bytes.length).toBe(sent.responseBytes);
    expect(JSON.parse(bytes.toString()).choices[0].message.content).toBe('[fwd] hello world');
    expect(await result).toEqual({ kind: 'forwarded', status: 200 });
  });

  it('keeps an SSE stream exactly and in order', async () => {
    const words = Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ');
    const res = await request(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: words }], stream: true, stream_options: { include_usage: true } }),
    });
    const text = await res.body.text();
    const sent = last();
    expect(endToEnd(res.headers)).toEqual(sent.responseHeaders);
    expect(Buffer.byteLength(text)).toBe(sent.responseBytes);
    const frames = text.trimEnd().split('\n\n');
    expect(frames.at(-1)).toBe('data: [DONE]');
    const content = frames
      .slice(0, -1)
      .map((f) => JSON.parse(f.slice('data: '.length)) as { choices: { delta: { content?: string } }[] })
      .map((c) => c.choices[0]?.delta.content ?? '')
      .join('');
    expect(content).toBe(`[fwd] ${words}`);
  });

  it('keeps binary audio byte for byte', async () => {
    const res = await request(`${proxy.url}/v1/audio/speech`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ model: 'vendor-tts-1', voice: 'alloy', input: 'binary check', response_format: 'wav' }),
    });
    const bytes = Buffer.from(await res.body.arrayBuffer());
    expect(res.headers['content-type']).toBe('audio/wav');
    expect(bytes.equals(speechBytes('binary check', 'wav'))).toBe(true);
  });

  it('passes a provider error through with its status, retry headers and body', async () => {
    mock.script({ status: 429, retryAfter: 7, retryAfterMs: 1500 });
    const res = await request(`${proxy.url}/v1/embeddings`, { method: 'POST', headers: auth, body: '{}' });
    const body = await res.body.text();
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.headers['retry-after-ms']).toBe('1500');
    expect(endToEnd(res.headers)).toEqual(last().responseHeaders);
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'rate_limit_exceeded', type: 'requests' } });
  });

  it('delivers a bodiless answer and ends the client response', async () => {
    mock.script({ status: 204, body: '' });
    const res = await request(`${proxy.url}/v1/anything`, { method: 'DELETE', headers: auth });
    expect(res.statusCode).toBe(204);
    expect(await res.body.text()).toBe('');
  });

  test.prop(
    {
      method: fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH'),
      body: fc.uint8Array({ minLength: 0, maxLength: 4096 }),
      segments: fc.array(fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/), { minLength: 1, maxLength: 4 }),
      query: fc.stringMatching(/^[A-Za-z0-9=&%._-]{0,40}$/),
      headerValue: fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,40}[\x21-\x7e])?$/),
    },
    { numRuns: 30 },
  )('sends method, path, query, end-to-end headers and body bytes unchanged', async ({ method, body, segments, query, headerValue }) => {
    const path = `/v1/${segments.join('/')}${query === '' ? '' : `?${query}`}`;
    // A raw path, not a URL: URL parsing would resolve `.` and `..` segments before they left.
    const res = await rawClient.request({
      path,
      method,
      headers: { ...auth, 'x-custom-value': headerValue, 'content-type': 'application/octet-stream' },
      body: Buffer.from(body),
    });
    await res.body.dump();
    const seen = last();
    expect(seen.method).toBe(method);
    expect(`${seen.path}${seen.query === '' ? '' : `?${seen.query}`}`).toBe(path);
    expect(seen.bodyBytes.equals(Buffer.from(body))).toBe(true);
    expect(seen.headers['x-custom-value']).toBe(headerValue);
    expect(seen.headers.authorization).toBe(auth.authorization);
    // undici computes the length from the body it sends (a client's own value is not trusted).
    expect(Number(seen.headers['content-length'] ?? 0)).toBe(body.length);
  });
});
