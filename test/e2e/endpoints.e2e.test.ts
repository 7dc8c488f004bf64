// Every data-plane endpoint through the gateway with the vendor SDK as client, plus the pass-through
// of any other /v1 path returning the provider's status, headers and bytes as received.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFile } from 'openai';
import { speechBytes } from '../mocks/vendor/index.ts';
import { boundaryOf as mockBoundaryOf, parseMultipart } from '../mocks/vendor/multipart.ts';
import { errorOf, GATEWAY_KEY, startE2E, target, VENDOR_MOCK_KEY, type E2E } from './harness.ts';

let e2e: E2E;

beforeAll(async () => {
  e2e = await startE2E({
    mocks: 1,
    configs: {
      single: target(0),
      forwarding: target(0, { forward_headers: ['x-team'] }),
      lb: { strategy: { mode: 'loadbalance' }, targets: [target(0, { weight: 2 }), target(0, { weight: 0, override_params: { model: 'never' } })] },
      'audio-override': target(0, { override_params: { model: 'whisper-forced', response_format: 'verbose_json', language: 'fr', prompt: null } }),
      'audio-by-model': {
        strategy: { mode: 'conditional', conditions: [{ query: { 'params.model': 'whisper-b' }, then: 'b' }], default: 'a' },
        targets: [target(0, { name: 'a', override_params: { model: 'went-a' } }), target(0, { name: 'b', override_params: { model: 'went-b' } })],
      },
    },
  });
});
afterAll(() => e2e.close());

const client = () => e2e.client({ 'x-gateway-config': 'single' });

describe('text completions', () => {
  it('serves non-streamed and streamed completions', async () => {
    const completion = await client().completions.create({ model: 'instruct', prompt: 'Say hi', max_tokens: 5 });
    expect(completion.object).toBe('text_completion');
    expect(completion.choices[0].text.length).toBeGreaterThan(0);
    const stream = await client().completions.create({ model: 'instruct', prompt: 'Say hi', stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
    expect(text.length).toBeGreaterThan(0);
  });

  it.each([
    [{ model: 'm', prompt: 'x', best_of: 1, n: 2 }, 'best_of'],
    [{ model: 'm', prompt: 'x', temperature: 2.5 }, 'temperature'],
    [{ model: 'm', prompt: 'x', stream_options: { include_usage: true } }, 'stream'],
    [{ model: 'm', prompt: 'x', stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
    [{ prompt: 'x' }, 'model'],
  ])('rejects a body breaking SPEC §4.9 before it reaches the provider: %j', async (body, field) => {
    const before = e2e.mocks[0].requests.length;
    const res = await e2e.fetch('/v1/completions', { method: 'POST', headers: { 'x-gateway-config': 'single', 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('invalid_request_body');
    expect(`${error.param} ${error.message}`).toContain(field);
    expect(e2e.mocks[0].requests.length).toBe(before);
  });
});

describe('other endpoints', () => {
  it('embeddings', async () => {
    const result = await client().embeddings.create({ model: 'embed', input: ['a', 'b'] });
    expect(result.data).toHaveLength(2);
    expect(result.data[0].embedding.length).toBeGreaterThan(0);
  });

  it('models', async () => {
    const list = await client().models.list();
    expect(list.data.length).toBeGreaterThan(0);
    // HEAD is the GET answer without its body (the provider is asked with GET).
    const get = await e2e.fetch('/v1/models', { headers: { 'x-gateway-config': 'single' } });
    const head = await e2e.fetch('/v1/models', { method: 'HEAD', headers: { 'x-gateway-config': 'single' } });
    expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([get.status, get.headers.get('content-type'), '']);
  });

  it('audio speech returns the provider bytes untouched', async () => {
    const response = await client().audio.speech.create({ model: 'tts', voice: 'alloy', input: 'hello' });
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.equals(speechBytes('hello', 'mp3'))).toBe(true);
  });

  it('audio transcription takes a multipart upload', async () => {
    const result = await client().audio.transcriptions.create({ model: 'whisper', file: await toFile(Buffer.from('RIFF....WAVE'), 'a.wav') });
    expect(typeof result.text).toBe('string');
  });

  it('audio transcription through a config\'s override_params: the form\'s fields are overridden, its file passed on byte for byte', async () => {
    const audio = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 251));
    const result = await e2e.client({ 'x-gateway-config': 'audio-override', 'x-gateway-trace-id': 'audio-override-1' }).audio.transcriptions.create({ model: 'whisper', prompt: 'dropped', file: await toFile(audio, 'a.wav', { type: 'audio/wav' }) });
    // The record names the model the client asked for, read from the form.
    expect((await e2e.recordOf('audio-override-1')).modelRequested).toBe('whisper');
    // verbose_json and fr came from the config.
    expect(result).toMatchObject({ language: 'fr', text: expect.stringContaining('a.wav (3000 bytes)') });
    const sent = e2e.mocks[0].requests.at(-1)!;
    const form = parseMultipart(sent.bodyBytes, mockBoundaryOf(sent.headers['content-type'] as string)!)!;
    expect(form.fields).toEqual({ model: 'whisper-forced', response_format: 'verbose_json', language: 'fr' });
    expect(form.files.file).toMatchObject({ filename: 'a.wav', contentType: 'audio/wav' });
    expect(form.files.file!.data.equals(audio)).toBe(true);
  });

  it('audio transcription routes by the form\'s fields (conditions on params.model)', async () => {
    for (const [model, went] of [['whisper-b', 'went-b'], ['whisper-1', 'went-a']]) {
      await e2e.client({ 'x-gateway-config': 'audio-by-model' }).audio.transcriptions.create({ model, file: await toFile(Buffer.from('RIFF....WAVE'), 'a.wav') });
      const sent = e2e.mocks[0].requests.at(-1)!;
      expect(parseMultipart(sent.bodyBytes, mockBoundaryOf(sent.headers['content-type'] as string)!)!.fields.model, model).toBe(went);
    }
    // A form that is not well-formed is the client's error, named as such.
    const res = await e2e.fetch('/v1/audio/transcriptions', { method: 'POST', headers: { 'x-gateway-config': 'audio-by-model', 'content-type': 'multipart/form-data; boundary=xyz' }, body: '--xyz\r\nno headers here' });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({ code: 'invalid_request_body', param: 'content-type' });
  });

  it('images', async () => {
    const result = await client().images.generate({ model: 'img', prompt: 'a cat' });
    expect(result.data?.length).toBeGreaterThan(0);
  });

  it('loadbalance never picks a weight-0 target', async () => {
    for (let i = 0; i < 20; i++) {
      const { response } = await e2e.client({ 'x-gateway-config': 'lb' }).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).withResponse();
      expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[0]');
    }
  });

  it('forwards headers named by the config and by x-gateway-forward-headers, and no others', async () => {
    await e2e.client({ 'x-gateway-config': 'forwarding', 'x-team': 'search', 'x-other': 'o', 'x-secret': 's', 'x-gateway-forward-headers': 'x-other' })
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const seen = e2e.mocks[0].requests.at(-1)!.headers;
    expect(seen['x-team']).toBe('search');
    expect(seen['x-other']).toBe('o');
    expect(seen['x-secret']).toBeUndefined();
  });

  it('refuses forwarding a header every target\'s adapter sets itself (the vendor credential): it would never be sent', async () => {
    const before = e2e.mocks[0].requests.length;
    const res = await e2e.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': 'single', 'content-type': 'application/json', authorization: 'Basic dTpw', 'x-gateway-forward-headers': 'x-other, Authorization' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('invalid_header');
    expect(error.param).toBe('x-gateway-forward-headers');
    expect(error.message).toContain('"authorization", which would have no effect');
    expect(e2e.mocks[0].requests.length).toBe(before);
  });
});

/** A request through node:http, which sends `connection` and `upgrade` as given (fetch refuses them). */
function rawRequest(path: string, headers: Record<string, string>, body?: string, method = body === undefined ? 'GET' : 'POST'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(e2e.gateway.url);
    const req = request({ hostname, port, path, method, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('pass-through', () => {
  it('routes no path with a "." or ".." segment (plain or percent-encoded): a provider could resolve it above its base path', async () => {
    const before = e2e.mocks[0].requests.length;
    for (const path of ['/v1/../v1/models', '/v1/vector_stores/%2e%2e/admin', '/v1/./models', '/v1/files/%2E.']) {
      // node:http sends the path as written (fetch would resolve the dots first).
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const { hostname, port } = new URL(e2e.gateway.url);
        const req = request({ hostname, port, path, headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'single' } }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(status, path).toBe(404);
      expect(JSON.parse(body).error.code, path).toBe('route_not_found');
    }
    expect(e2e.mocks[0].requests.length).toBe(before);
    // A dot inside a segment is a name like any other.
    await e2e.fetch('/v1/models/gpt-4.1', { headers: { 'x-gateway-config': 'single' } });
    expect(e2e.mocks[0].requests.at(-1)!.path).toBe('/v1/models/gpt-4.1');
  });

  it.each(['POST', 'PUT', 'DELETE', 'GET'])('%s of any other /v1 path returns status, headers and bytes as received', async (method) => {
    const body = method === 'GET' ? undefined : JSON.stringify({ any: 'thing', n: [1, 2] });
    const res = await e2e.fetch('/v1/vector_stores/vs_1/files?limit=2&order=desc', {
      method,
      headers: { 'x-gateway-config': 'single', ...(body ? { 'content-type': 'application/json' } : {}) },
      body,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-mock-instance')).toBe('mock0');
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config');
    const raw = Buffer.from(await res.arrayBuffer());
    const upstream = e2e.mocks[0].requests.at(-1)!;
    expect(upstream.method).toBe(method);
    expect(upstream.path).toBe('/v1/vector_stores/vs_1/files');
    expect(upstream.query).toBe('limit=2&order=desc');
    if (body) expect(upstream.body).toBe(body);
    expect(raw.length).toBe(upstream.responseBytes);
    expect(JSON.parse(raw.toString()).path).toBe('/v1/vector_stores/vs_1/files');
  });

  it('refuses a WebSocket handshake that is not a GET of the pass-through (realtime.e2e.test.ts has the rest), and ignores an h2c upgrade', async () => {
    const before = e2e.mocks[0].requests.length;
    const handshake = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };
    for (const [path, headers, body, method] of [
      ['/v1/models', { ...handshake, upgrade: 'foo, WebSocket', 'x-gateway-config': 'single' }, undefined, 'GET'],
      ['/v1/realtime?model=gpt-realtime', { ...handshake, 'x-gateway-config': 'single', 'content-type': 'application/json' }, '{}', 'POST'],
      // A GET with a body is no handshake either (nothing would end the read of its body on a handed-over socket).
      // node:http frames a GET's body only with a length given.
      ['/v1/realtime?model=gpt-realtime', { ...handshake, 'x-gateway-config': 'single', 'content-type': 'application/json', 'content-length': '2' }, '{}', 'GET'],
    ] as const) {
      const answer = await rawRequest(path, { 'x-gateway-api-key': GATEWAY_KEY, ...headers }, body, method);
      expect(answer.status, path).toBe(400);
      const error = JSON.parse(answer.body).error;
      expect(error).toMatchObject({ code: 'endpoint_not_supported', param: 'upgrade' });
      expect(error.message).toContain('WebSocket');
      const record = await e2e.recordOf(answer.headers['x-gateway-trace-id'] as string);
      expect(record.status).toBe(400);
    }
    // Authentication comes first.
    expect((await rawRequest('/v1/realtime?model=gpt-realtime', { ...handshake })).status).toBe(401);
    expect(e2e.mocks[0].requests.length).toBe(before);
    // curl --http2 on an http:// URL asks for h2c: the answer is HTTP/1.1, as if it had not asked.
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
    const h2c = await rawRequest('/v1/chat/completions', { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'single', connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': 'AAMAAABkAAQCAAAAAAIAAAAA', 'content-type': 'application/json', authorization: `Bearer ${VENDOR_MOCK_KEY}` }, body);
    expect(h2c.status).toBe(200);
    expect(JSON.parse(h2c.body).object).toBe('chat.completion');
  });

  it('passes a provider error status through untouched', async () => {
    e2e.mocks[0].script({ path: '/v1/vector_stores/nope', status: 404, error: { message: 'No such vector store' } });
    const res = await e2e.fetch('/v1/vector_stores/nope', { headers: { 'x-gateway-config': 'single' } });
    expect(res.status).toBe(404);
    expect((await errorOf(res)).message).toBe('No such vector store');
  });
});

describe('the trace id', () => {
  it('is on every kind of response: routed JSON, SSE, pass-through, gateway errors, unknown routes and health', async () => {
    const responses = await Promise.all([
      e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': 'single', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }) }),
      e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': 'single', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] }) }),
      e2e.fetch('/v1/vector_stores', { headers: { 'x-gateway-config': 'single' } }),
      e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': 'nope', 'content-type': 'application/json' }, body: '{}' }),
      e2e.fetch('/v2/nothing'),
      fetch(`${e2e.gateway.url}/v1/health`),
      e2e.fetch('/v1/models', { headers: { 'x-gateway-config': 'single', 'x-gateway-trace-id': 'mine-123' } }),
    ]);
    for (const res of responses.slice(0, 6)) {
      expect(res.headers.get('x-gateway-trace-id'), `${res.url} ${res.status}`).toMatch(/^[0-9a-f-]{36}$/);
      await res.arrayBuffer();
    }
    expect(responses[6].headers.get('x-gateway-trace-id')).toBe('mine-123');
  });
});
