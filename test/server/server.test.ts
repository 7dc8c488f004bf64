// End-to-end behaviour of the server shell over real HTTP, against the generated route table.
import { connect } from 'node:net';
import { once } from 'node:events';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../runtime/core/errors.ts';
import { sendJson } from '../../runtime/server/respond.ts';
import { setOutcomeHeaders } from '../../runtime/inference/send-outcome.ts';
import { errorOf, send, startTestGateway, TEST_KEY, UUID } from './helpers.ts';
import { until } from '../jobs/harness.ts';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
const auth = { 'x-gateway-api-key': TEST_KEY };

beforeAll(async () => {
  gw = await startTestGateway({
    maxBodyBytes: 1024,
    async setup({ gateway }) {
      gateway.registerHandler('inference.chat', async (ctx) => {
        const body = await ctx.json();
        sendJson(ctx.res, 200, { body, keyId: ctx.apiKey?.id ?? null });
      });
      gateway.registerHandler('inference.embeddings', async (ctx) => {
        const body = await ctx.readBody();
        sendJson(ctx.res, 200, { bytes: body.length });
      });
      gateway.registerHandler('inference.models', async () => {
        throw new Error('boom with sk-secret-provider-key inside');
      });
      gateway.registerHandler('inference.images', async () => {
        throw new GatewayError('not_ready');
      });
      gateway.registerHandler('inference.audio', async () => {});
      gateway.registerHandler('inference.completions', async (ctx) => {
        setOutcomeHeaders(ctx.res, { status: 200, leafPath: 'config.targets[1]', retries: 2, provider: 'vendor', response: null, error: null });
        sendJson(ctx.res, 200, { body: await ctx.json() });
      });
      gateway.registerHandler('batches.create', async (ctx) => sendJson(ctx.res, 200, { body: await ctx.json() }));
      gateway.registerHandler('fineTuning.list', async (ctx) => sendJson(ctx.res, 200, { query: ctx.query }));
      gateway.registerHandler('fineTuning.retrieve', async (ctx) => sendJson(ctx.res, 200, { params: ctx.params }));
      gateway.registerHandler('inference.passthrough', async (ctx) =>
        sendJson(ctx.res, 200, { method: ctx.method, params: ctx.params, rawQuery: ctx.rawQuery }),
      );
    },
  });
});

afterAll(async () => {
  await gw?.close();
});

describe('health and authentication', () => {
  it('answers GET /v1/health without a key', async () => {
    const res = await send(gw.url, { path: '/v1/health' });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', store: { backend: 'sqlite', status: 'ok' } });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('reports each backend a setup registers under its name, ok or unavailable, and stays ok itself', async () => {
    let up = true;
    const probed = await startTestGateway({ setup: async (setup) => setup.backendStatus('probe', () => up) });
    try {
      expect((await send(probed.url, { path: '/v1/health' })).json()).toEqual({ status: 'ok', store: { backend: 'sqlite', status: 'ok' }, probe: { status: 'ok' } });
      up = false;
      const down = await send(probed.url, { path: '/v1/health' });
      expect(down.status).toBe(200);
      expect(down.json()).toEqual({ status: 'ok', store: { backend: 'sqlite', status: 'ok' }, probe: { status: 'unavailable' } });
    } finally {
      await probed.close();
    }
  });

  it('rejects a missing key with 401 missing_gateway_api_key', async () => {
    const res = await send(gw.url, { method: 'POST', path: '/v1/chat/completions', body: '{}' });
    expect(res.status).toBe(401);
    expect(errorOf(res).code).toBe('missing_gateway_api_key');
  });

  it('rejects a wrong key with 401 invalid_gateway_api_key', async () => {
    for (const key of ['nope', TEST_KEY + 'x', TEST_KEY.slice(0, -1), 'x'.repeat(5000)]) {
      const res = await send(gw.url, { method: 'POST', path: '/v1/chat/completions', headers: { 'x-gateway-api-key': key }, body: '{}' });
      expect(res.status).toBe(401);
      expect(errorOf(res)).toMatchObject({ code: 'invalid_gateway_api_key', type: 'authentication_error' });
    }
  });

  it('accepts the seeded key and exposes its record to the handler', async () => {
    const res = await send(gw.url, { method: 'POST', path: '/v1/chat/completions', headers: auth, body: '{"model":"m","messages":[{"role":"user","content":"hi"}]}' });
    expect(res.status).toBe(200);
    const [seeded] = await gw.store.apiKeys.list();
    expect(res.json().keyId).toBe(seeded.id);
    expect(seeded).toMatchObject({ name: 'GATEWAY_API_KEY', scope: 'admin', revokedAt: null });
  });

  it('stops accepting a key once it is revoked and the ring reloads', async () => {
    const created = await gw.store.apiKeys.create({ name: 'short-lived' });
    await gw.keys.reload();
    const headers = { 'x-gateway-api-key': created.key };
    expect((await send(gw.url, { path: '/v1/fine_tuning/jobs', headers })).status).toBe(200);
    await gw.store.apiKeys.revoke(created.record.id);
    await gw.keys.reload();
    const res = await send(gw.url, { path: '/v1/fine_tuning/jobs', headers });
    expect(res.status).toBe(401);
    expect(errorOf(res).code).toBe('invalid_gateway_api_key');
  });
});

describe('authentication on a keep-alive connection', () => {
  // One socket for every request: the connection's remembered key must never outlive a reload or
  // answer for a different key.
  it('accepts the same key again, refuses a different one, and stops at a revocation', async () => {
    const created = await gw.store.apiKeys.create({ name: 'keep-alive' });
    await gw.keys.reload();
    let connects = 0;
    const client = new Client(gw.url);
    client.on('connect', () => connects++);
    const get = async (key: string): Promise<number> => {
      const res = await client.request({ method: 'GET', path: '/v1/fine_tuning/jobs', headers: { 'x-gateway-api-key': key } });
      await res.body.text();
      return res.statusCode;
    };
    try {
      expect(await get(created.key)).toBe(200);
      expect(await get(created.key)).toBe(200);
      expect(await get(created.key + 'x')).toBe(401);
      expect(await get(TEST_KEY)).toBe(200);
      expect(await get(created.key)).toBe(200);
      await gw.store.apiKeys.revoke(created.record.id);
      await gw.keys.reload();
      expect(await get(created.key)).toBe(401);
      expect(await get(TEST_KEY)).toBe(200);
      expect(connects).toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe('trace id', () => {
  it('generates a UUID when absent and echoes it on every kind of response', async () => {
    const ok = await send(gw.url, { path: '/v1/health' });
    const unauthorised = await send(gw.url, { path: '/v1/models' });
    const missing = await send(gw.url, { path: '/nowhere' });
    for (const res of [ok, unauthorised, missing]) expect(res.headers['x-gateway-trace-id']).toMatch(UUID);
    expect(ok.headers['x-gateway-trace-id']).not.toBe(unauthorised.headers['x-gateway-trace-id']);
  });

  it('echoes the client trace id', async () => {
    const res = await send(gw.url, { path: '/v1/models', headers: { 'x-gateway-trace-id': 'trace 42/abc' } });
    expect(res.status).toBe(401);
    expect(res.headers['x-gateway-trace-id']).toBe('trace 42/abc');
  });

  it('refuses an overlong trace id with 400 invalid_header', async () => {
    const res = await send(gw.url, { path: '/v1/health', headers: { 'x-gateway-trace-id': 't'.repeat(300) } });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_header', param: 'x-gateway-trace-id' });
    expect(res.headers['x-gateway-trace-id']).toMatch(UUID);
  });
});

describe('routing', () => {
  it('answers 404 route_not_found outside /v1', async () => {
    const res = await send(gw.url, { path: '/v2/chat/completions', headers: auth });
    expect(res.status).toBe(404);
    expect(errorOf(res)).toMatchObject({ code: 'route_not_found', type: 'not_found_error', param: null });
  });

  it('answers 405 method_not_allowed with Allow when the path exists for other methods', async () => {
    const res = await send(gw.url, { method: 'PATCH', path: '/v1/chat/completions', headers: auth, body: '{}' });
    expect(res.status).toBe(405);
    expect(errorOf(res).code).toBe('method_not_allowed');
    // A literal path answers with its own methods, not the pass-through's it would also match.
    expect(res.headers.allow).toBe('POST');
    const health = await send(gw.url, { method: 'PATCH', path: '/v1/health' });
    expect(health.status).toBe(405);
    expect(health.headers.allow).toBe('GET, HEAD');
    const passThrough = await send(gw.url, { method: 'PATCH', path: '/v1/assistants', headers: auth, body: '{}' });
    expect(passThrough.headers.allow).toBe('POST, GET, HEAD, PUT, DELETE');
  });

  it('answers HEAD wherever GET is routed: the GET answer\'s status and headers, no body', async () => {
    const get = await send(gw.url, { method: 'GET', path: '/v1/health' });
    const head = await send(gw.url, { method: 'HEAD', path: '/v1/health' });
    expect(head.status).toBe(get.status);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.text).toBe('');
    expect(get.text.length).toBeGreaterThan(0);
  });

  it('answers 404 for a route whose handler is not registered', async () => {
    const res = await send(gw.url, { method: 'POST', path: '/v1/prompts/p1/render', headers: auth, body: '{"variables":{}}' });
    expect(res.status).toBe(404);
    expect(errorOf(res).code).toBe('route_not_found');
  });

  it('passes path parameters and the raw query to the handler', async () => {
    const res = await send(gw.url, { path: '/v1/fine_tuning/jobs/ft-abc%20d', headers: auth });
    expect(res.json()).toEqual({ params: { fine_tuning_job_id: 'ft-abc%20d' } });
    const through = await send(gw.url, { method: 'DELETE', path: '/v1/files/file-1/content?x=1&y', headers: auth });
    expect(through.json()).toEqual({ method: 'DELETE', params: { path: 'files/file-1/content' }, rawQuery: 'x=1&y' });
  });
});

describe('bodies', () => {
  it('answers 413 body_too_large from content-length before reading', async () => {
    const res = await send(gw.url, { method: 'POST', path: '/v1/embeddings', headers: auth, body: 'x'.repeat(5000) });
    expect(res.status).toBe(413);
    expect(errorOf(res).code).toBe('body_too_large');
    expect(res.headers.connection).toBe('close');
  });

  it('lets a client still sending a body over the limit read the 413: the rest is read and dropped before the connection closes', async () => {
    // Several megabytes: more than the sockets' buffers hold, so the client is still writing when
    // the answer comes. Closed at once, the connection reset it and fetch reported a broken pipe.
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: 'x'.repeat(4 * 1024 * 1024) });
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('body_too_large');
      expect(res.headers.get('connection')).toBe('close');
    }
    // A client that sends its body slowly, as a raw socket: every write after the answer still lands,
    // and the connection ends only once the whole body was sent.
    const url = new URL(gw.url);
    const socket = connect(Number(url.port), url.hostname);
    await once(socket, 'connect');
    const total = 20 * 64 * 1024;
    socket.write(`POST /v1/embeddings HTTP/1.1\r\nhost: x\r\nx-gateway-api-key: ${auth['x-gateway-api-key']}\r\ncontent-type: application/json\r\ncontent-length: ${total}\r\n\r\n`);
    let answer = '';
    let closed = false;
    socket.on('data', (data: Buffer) => { answer += data.toString(); });
    socket.on('close', () => { closed = true; });
    const failures: Error[] = [];
    socket.on('error', (error) => failures.push(error));
    for (let i = 0; i < 20; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(closed).toBe(false);
      socket.write(Buffer.alloc(64 * 1024, 0x78));
    }
    await until(async () => closed, (done) => done, 5_000, 'the connection closing once the body was sent');
    expect(failures).toEqual([]);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"code":"body_too_large"');
  });

  it('answers 413 for a chunked body that grows past the limit while reading', async () => {
    const res = await send(gw.url, {
      method: 'POST',
      path: '/v1/embeddings',
      headers: { ...auth, 'transfer-encoding': 'chunked' },
      body: Buffer.alloc(4096, 'y'),
    });
    expect(res.status).toBe(413);
    expect(errorOf(res).code).toBe('body_too_large');
  });

  it('reads a body at the limit', async () => {
    const res = await send(gw.url, { method: 'POST', path: '/v1/embeddings', headers: auth, body: Buffer.alloc(1024, 'z') });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ bytes: 1024 });
  });

  it('answers 400 invalid_json for bodies that are not JSON', async () => {
    for (const body of ['', '{', '{"a":1,}', 'nan', '\u00ff']) {
      const res = await send(gw.url, { method: 'POST', path: '/v1/chat/completions', headers: auth, body });
      expect(res.status).toBe(400);
      expect(errorOf(res).code).toBe('invalid_json');
    }
    const located = await send(gw.url, { method: 'POST', path: '/v1/chat/completions', headers: auth, body: '{"model": "m",\n "messages": [}' });
    expect(errorOf(located).message).toBe("The request body is not valid JSON at character 30: unexpected '}' where a value should be (no comma before a closing bracket).");
  });

  it('accepts JSON behind a UTF-8 byte order mark', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"model":"m","messages":[{"role":"user","content":"hi"}]}')]);
    const res = await send(gw.url, { method: 'POST', path: '/v1/chat/completions', headers: auth, body });
    expect(res.text).toContain('"model":"m"');
    expect(res.status).toBe(200);
  });

  it('validates an always-validated body before the handler, with the pointer of the first error', async () => {
    const missing = await send(gw.url, { method: 'POST', path: '/v1/batches', headers: auth, body: '{"input_file_id":"f","completion_window":"24h"}' });
    expect(missing.status).toBe(400);
    expect(errorOf(missing)).toMatchObject({ code: 'invalid_request_body', param: '/endpoint' });
    const wrongEnum = await send(gw.url, {
      method: 'POST',
      path: '/v1/batches',
      headers: auth,
      body: '{"input_file_id":"f","completion_window":"1w","endpoint":"/v1/chat/completions"}',
    });
    expect(errorOf(wrongEnum)).toMatchObject({ code: 'invalid_request_body', param: '/completion_window' });
    expect(errorOf(wrongEnum).message).toContain('"24h"');
    const ok = await send(gw.url, {
      method: 'POST',
      path: '/v1/batches',
      headers: auth,
      body: '{"input_file_id":"f","completion_window":"24h","endpoint":"/v1/chat/completions"}',
    });
    expect(ok.status).toBe(200);
  });

  it('validates a when-read body when the handler parses it', async () => {
    const res = await send(gw.url, { method: 'POST', path: '/v1/chat/completions', headers: auth, body: '{"messages":[]}' });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request_body', param: '/model' });
  });
});

describe('query strings', () => {
  it('coerces integer query parameters for the validator', async () => {
    const res = await send(gw.url, { path: '/v1/fine_tuning/jobs?limit=5&after=ft-1', headers: auth });
    expect(res.status).toBe(200);
    expect(res.json().query).toEqual({ limit: 5, after: 'ft-1' });
  });

  it('keeps numeric-looking strings as strings where the schema wants a string', async () => {
    const res = await send(gw.url, { path: '/v1/fine_tuning/jobs?after=123', headers: auth });
    expect(res.json().query).toEqual({ after: '123' });
  });

  it('answers 400 invalid_query with the pointer of the bad parameter', async () => {
    for (const q of ['limit=abc', 'limit=1.5', 'limit=']) {
      const res = await send(gw.url, { path: `/v1/fine_tuning/jobs?${q}`, headers: auth });
      expect(res.status).toBe(400);
      expect(errorOf(res)).toMatchObject({ code: 'invalid_query', param: '/limit' });
    }
  });
});

describe('gateway response headers', () => {
  it('sets the routing headers next to the trace id', async () => {
    const res = await send(gw.url, { method: 'POST', path: '/v1/completions', headers: { ...auth, 'x-gateway-trace-id': 't-1' }, body: '{"model":"m","prompt":"p"}' });
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject({
      'x-gateway-trace-id': 't-1',
      'x-gateway-last-used-option-index': 'config.targets[1]',
      'x-gateway-retry-attempt-count': '2',
      'x-gateway-provider': 'vendor',
      'x-gateway-cache-status': 'DISABLED',
    });
  });
});

describe('handler failures', () => {
  it('turns a thrown Error into 500 internal_error, logs it without echoing it, and keeps serving', async () => {
    const res = await send(gw.url, { path: '/v1/models', headers: auth });
    expect(res.status).toBe(500);
    expect(errorOf(res)).toEqual({ code: 'internal_error', type: 'server_error', param: null, message: 'The gateway failed unexpectedly.' });
    expect(res.text).not.toContain('sk-secret');
    const logged = gw.logger.lines.find((line) => line.event === 'request_failed' && line.fields?.trace_id === res.headers['x-gateway-trace-id']);
    expect(logged?.fields).toMatchObject({ method: 'GET', path: '/v1/models', route: 'listModels' });
    expect(JSON.stringify(logged)).not.toContain(TEST_KEY);
    expect((await send(gw.url, { path: '/v1/health' })).status).toBe(200);
  });

  it('turns a thrown GatewayError into its own status and body', async () => {
    const res = await send(gw.url, { method: 'POST', path: '/v1/images/generations', headers: auth, body: '{}' });
    expect(res.status).toBe(503);
    expect(errorOf(res).code).toBe('not_ready');
  });

  it('answers 500 when a handler returns without responding', async () => {
    const res = await send(gw.url, { method: 'POST', path: '/v1/audio/speech', headers: auth, body: '{}' });
    expect(res.status).toBe(500);
    expect(errorOf(res).code).toBe('internal_error');
  });
});
