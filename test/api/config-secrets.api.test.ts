// `${NAME}` in config files, through a real gateway: the provider gets the variable's value, the API
// shows the reference (never the value), a config sent over the API or inline may not use one, and a
// file naming a variable that is not set stops the start, located.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { type ApiGateway, startApiGateway } from './harness.ts';

const VARIABLE = 'GATEWAY_TEST_VENDOR_KEY';

describe('secret references in config files', () => {
  let api: ApiGateway;
  let mock: VendorMock;
  let dir: string;
  beforeAll(async () => {
    mock = await startVendorMock();
    dir = await mkdtemp(join(tmpdir(), 'gateway-secrets-'));
    await mkdir(join(dir, 'configs'));
    await writeFile(join(dir, 'configs', 'by-ref.json'), JSON.stringify({ provider: 'vendor', api_key: `\${${VARIABLE}}`, custom_host: mock.baseURL }, null, 2));
    process.env[VARIABLE] = VENDOR_MOCK_KEY;
    try {
      api = await startApiGateway('sqlite', { configsDir: join(dir, 'configs') });
    } finally {
      delete process.env[VARIABLE];
    }
  });
  afterAll(async () => {
    await api?.close();
    await mock?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('sends the variable\'s value to the provider and shows only the reference', async () => {
    const before = mock.requests.length;
    const res = await api.call('POST', '/v1/chat/completions', { headers: { 'x-gateway-config': 'by-ref' }, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] } });
    expect(res.status).toBe(200);
    expect(mock.requests[before].headers.authorization).toBe(`Bearer ${VENDOR_MOCK_KEY}`);
    const shown = await api.call('GET', '/v1/configs/by-ref');
    expect(shown.body.config.api_key).toBe(`\${${VARIABLE}}`);
    expect(JSON.stringify((await api.call('GET', '/v1/configs')).body)).not.toContain(VENDOR_MOCK_KEY);
  });

  it('refuses a reference in a config saved over the API or sent inline', async () => {
    const saved = await api.call('POST', '/v1/configs', { body: { id: 'sneaky', config: { provider: 'vendor', api_key: '${GATEWAY_MASTER_KEY}', custom_host: mock.baseURL } } });
    expect(saved.status).toBe(400);
    expect(saved.body.error.errors).toEqual([expect.objectContaining({ code: 'CFG_SECRET_REFERENCE_NOT_ALLOWED', pointer: '/api_key' })]);
    const inline = await api.call('POST', '/v1/chat/completions', { headers: { 'x-gateway-config': JSON.stringify({ provider: 'vendor', api_key: '${HOME}', custom_host: mock.baseURL }) }, body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] } });
    expect(inline.status).toBe(400);
    expect(inline.body.error.errors).toEqual([expect.objectContaining({ code: 'CFG_SECRET_REFERENCE_NOT_ALLOWED' })]);
  });

  it('stops the start, located, when a file names a variable that is not set', async () => {
    await expect(startApiGateway('sqlite', { configsDir: join(dir, 'configs') })).rejects.toThrow(/by-ref\.json:3:\d+ CFG_SECRET_NOT_SET \/api_key/);
  });
});
