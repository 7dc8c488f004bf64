// Endpoints that read no request body refuse one (400 invalid_request_body) instead of dropping it:
// walked over the generated route table on serve's whole gateway, so an endpoint added later is
// covered too. An empty body, or an empty JSON object, holds nothing to ignore and passes.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../generated/routes.ts';
import { serveConfigs, type ServedConfigs } from './serve-in-process.ts';

const ADMIN = 'gw_admin-no-body-0123456789abcdefghijklmnop';
const NO_BODY = ROUTES.filter((route) => route.noBody === true);

describe('endpoints without a request body', () => {
  let served: ServedConfigs;
  /** node:http, since fetch sends no body with GET. */
  const call = (method: string, path: string, body?: string): Promise<{ status: number; json: () => Promise<any> }> =>
    new Promise((resolve, reject) => {
      const url = new URL(path, served.gateway.url);
      const headers: Record<string, string> = { 'x-gateway-api-key': ADMIN, 'content-type': 'application/json' };
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      const req = request(url, { method, headers }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: async () => JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end(body);
    });
  const errorCode = async (res: { json: () => Promise<any> }): Promise<string | undefined> => (await res.json().catch(() => ({}))).error?.code;
  beforeAll(async () => {
    served = await serveConfigs('no-body', ADMIN, {});
  });
  afterAll(() => served?.close());

  it('are the reads, deletes and bare actions; nothing that forwards a body to a provider', () => {
    expect(NO_BODY.length).toBeGreaterThanOrEqual(40);
    expect(NO_BODY.some((route) => route.handler.startsWith('inference.'))).toBe(false);
    for (const handler of ['configs.create', 'files.create', 'virtualKeys.update', 'batches.create']) expect(NO_BODY.some((route) => route.handler === handler), handler).toBe(false);
  });

  it.each(NO_BODY.map((route) => [`${route.method} ${route.path}`, route] as const))('%s refuses a body with 400 invalid_request_body, and takes none or {}', async (_name, route) => {
    const path = route.path.replace(/\{[^}]+\}/g, 'x');
    const refused = await call(route.method, path, '{"page_size": 1}');
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: unknown }).error).toMatchObject({ code: 'invalid_request_body', param: null, message: expect.stringContaining(`${route.method} ${route.path} reads no request body`) });
    for (const body of [undefined, '{}', ' { } ']) expect(await errorCode(await call(route.method, path, body)), String(body)).not.toBe('invalid_request_body');
  });

  it('a list asked for a page in its body says so instead of answering every record', async () => {
    const res = await call('GET', '/v1/configs', '{"page_size": 1}');
    expect(res.status).toBe(400);
    expect((await call('GET', '/v1/configs?page_size=1')).status).toBe(200);
  });
});
