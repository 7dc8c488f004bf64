// GATEWAY_MAX_BODY_BYTES sets the largest request body `gateway serve` takes: lowered, a body over it
// is 413 body_too_large; raised, a chat request larger than the 32 MiB default (many images, say)
// reaches the provider whole.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BODY_BYTES } from '../../runtime/server/server.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { startServe, stopServes } from './serve-processes.ts';

const ADMIN = 'gw_body-limit-admin-key-0123456789abcdef';

/** A chat request of about `bytes` bytes: one user message carrying an image as a data URL. */
function chatOf(bytes: number): string {
  const image = `data:image/png;base64,${'A'.repeat(bytes)}`;
  return JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: image } }] }] });
}

describe('GATEWAY_MAX_BODY_BYTES', () => {
  let dir: string;
  let mock: VendorMock;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gateway-body-limit-'));
    mock = await startVendorMock({ label: 'body-limit' });
  });
  afterAll(async () => {
    await mock?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const send = (url: string, body: string) => fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL }), 'content-type': 'application/json' },
    body,
  });

  it('lowered, refuses a body over it with 413 body_too_large', async () => {
    const serve = await startServe({ GATEWAY_API_KEY: ADMIN, GATEWAY_MAX_BODY_BYTES: String(2 * 1024 * 1024) }, join(dir, 'low'));
    try {
      expect((await send(serve.url, chatOf(1024 * 1024))).status).toBe(200);
      const refused = await send(serve.url, chatOf(3 * 1024 * 1024));
      expect(refused.status).toBe(413);
      expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'body_too_large', message: 'The request body is larger than the gateway accepts (2097152 bytes).' });
    } finally {
      await stopServes(serve);
    }
  });

  it('raised, takes a body larger than the default and forwards it whole', async () => {
    const serve = await startServe({ GATEWAY_API_KEY: ADMIN, GATEWAY_MAX_BODY_BYTES: String(48 * 1024 * 1024) }, join(dir, 'high'));
    try {
      const body = chatOf(DEFAULT_MAX_BODY_BYTES + 1024 * 1024);
      const before = mock.requests.length;
      const res = await send(serve.url, body);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(mock.requests.length).toBe(before + 1);
      expect(Buffer.byteLength(mock.requests.at(-1)!.body)).toBe(Buffer.byteLength(body));
    } finally {
      await stopServes(serve);
    }
  });

  it('out of its bounds, stops the start naming the setting', async () => {
    await expect(startServe({ GATEWAY_API_KEY: ADMIN, GATEWAY_MAX_BODY_BYTES: '1024' }, join(dir, 'bad'))).rejects.toThrow('GATEWAY_MAX_BODY_BYTES must be an integer of at least 2097152 and at most 1073741824, not "1024"');
  });
});
