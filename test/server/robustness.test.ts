// Nothing a client sends may crash the process: malformed HTTP, oversized headers, aborted uploads,
// random bytes. After each the server must still answer a normal request.
import { fc, test } from '@fast-check/vitest';
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson } from '../../runtime/server/respond.ts';
import { send, sendRaw, startTestGateway, TEST_KEY } from './helpers.ts';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
const uploads: Array<{ outcome: string; signalAborted: boolean }> = [];
let streamAborted: Promise<void>;
let resolveStreamAborted: () => void;

beforeAll(async () => {
  streamAborted = new Promise((resolve) => (resolveStreamAborted = resolve));
  gw = await startTestGateway({
    maxBodyBytes: 64 * 1024,
    async setup({ gateway }) {
      gateway.registerHandler('inference.embeddings', async (ctx) => {
        try {
          const body = await ctx.readBody();
          sendJson(ctx.res, 200, { bytes: body.length });
          uploads.push({ outcome: 'read', signalAborted: ctx.signal.aborted });
        } catch (err) {
          uploads.push({ outcome: (err as Error).name, signalAborted: ctx.signal.aborted });
          throw err;
        }
      });
      gateway.registerHandler('inference.chat', async (ctx) => {
        // A long response the client abandons half way: the signal must fire.
        ctx.res.writeHead(200, { 'content-type': 'text/event-stream' });
        ctx.res.write('data: {}\n\n');
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        resolveStreamAborted();
      });
      gateway.registerHandler('inference.passthrough', async (ctx) => sendJson(ctx.res, 200, { ok: true }));
    },
  });
});

afterAll(async () => {
  await gw?.close();
});

async function expectAlive(): Promise<void> {
  const res = await send(gw.url, { path: '/v1/health' });
  expect(res.status).toBe(200);
}

describe('malformed requests', () => {
  const garbage: Array<[string, string, RegExp]> = [
    ['an unknown method', 'BREW /v1/health HTTP/1.1\r\nhost: x\r\n\r\n', /^HTTP\/1\.1 400 /],
    ['a non-HTTP line', 'hello there\r\n\r\n', /^HTTP\/1\.1 400 /],
    ['a bad HTTP version', 'GET /v1/health HTTP/9.9\r\nhost: x\r\n\r\n', /^HTTP\/1\.1 (400|505) /],
    ['a bad content-length', 'POST /v1/embeddings HTTP/1.1\r\nhost: x\r\ncontent-length: abc\r\n\r\n', /^HTTP\/1\.1 400 /],
    ['both content-length and chunked', 'POST /v1/embeddings HTTP/1.1\r\nhost: x\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n', /^HTTP\/1\.1 400 /],
    ['a header without a colon', 'GET /v1/health HTTP/1.1\r\nhost: x\r\nbroken header\r\n\r\n', /^HTTP\/1\.1 400 /],
    ['a NUL in the path', 'GET /v1/he\u0000alth HTTP/1.1\r\nhost: x\r\n\r\n', /^HTTP\/1\.1 400 /],
    ['an absolute-form target', 'GET http://evil.example/v1/health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n', /^HTTP\/1\.1 404 /],
    ['an asterisk target', 'OPTIONS * HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n', /^HTTP\/1\.1 404 /],
    ['a path with bad percent escapes', 'GET /v1/%zz%/%%% HTTP/1.1\r\nhost: x\r\nconnection: close\r\nx-gateway-api-key: ' + TEST_KEY + '\r\n\r\n', /^HTTP\/1\.1 200 /],
  ];
  it('answers the request before bytes that fail to parse, then the error, then closes the connection', async () => {
    // A request with a body, then junk behind it: the junk fails while the request is being answered.
    for (const method of ['HEAD', 'GET']) {
      const answer = await sendRaw(gw.url, Buffer.concat([Buffer.from(`${method} /v1/health HTTP/1.1\r\nhost: x\r\ncontent-length: 1\r\n\r\n`), Buffer.from([0, 0])]));
      const statuses = [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => match[1]);
      // Two answers, in order: the request's own (a HEAD or GET with a body is refused), then the junk's.
      expect(statuses, `${method}: ${answer}`).toHaveLength(2);
      expect(answer.slice(answer.lastIndexOf('HTTP/1.1 ')), method).toMatch(/^HTTP\/1\.1 400 [^]*"code":"malformed_request"/);
    }
    await expectAlive();
  });

  for (const [what, bytes, expected] of garbage) {
    it(`answers ${what} with an error and keeps serving`, async () => {
      const answer = await sendRaw(gw.url, bytes);
      expect(answer).toMatch(expected);
      if (!/ 200 /.test(answer)) expect(answer).toMatch(/"error":\{"message":/);
      await expectAlive();
    });
  }

  it('answers 431 headers_too_large for oversized headers', async () => {
    const answer = await sendRaw(gw.url, `GET /v1/health HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(80 * 1024)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('"code":"headers_too_large"');
    await expectAlive();
  });

  it('accepts a large inline header within the limit', async () => {
    const res = await send(gw.url, { path: '/v1/health', headers: { 'x-gateway-config': 'c'.repeat(40 * 1024) } });
    expect(res.status).toBe(200);
  });

  it('answers invalid gateway headers with 400 invalid_header naming the header', async () => {
    const cases: Array<[string, string]> = [
      ['x-gateway-request-timeout', '0'],
      ['x-gateway-request-timeout', '-5'],
      ['x-gateway-request-timeout', '1.5'],
      ['x-gateway-request-timeout', '99999999999'],
      ['x-gateway-cache-force-refresh', 'yes'],
      ['x-gateway-forward-headers', '["ok", 3]'],
      ['x-gateway-forward-headers', 'x-a, bad header'],
      ['x-gateway-forward-headers', '[not json'],
    ];
    for (const [header, value] of cases) {
      const res = await send(gw.url, { method: 'POST', path: '/v1/embeddings', headers: { 'x-gateway-api-key': TEST_KEY, [header]: value }, body: '{}' });
      expect(res.status, `${header}: ${value}`).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_header', param: header });
      expect(res.json().error.message).toContain(header);
    }
  });
});

describe('compressed bodies', () => {
  it('refuses a content-encoding other than identity with 415, before reading the body', async () => {
    for (const encoding of ['gzip', 'br', 'deflate', 'gzip, identity']) {
      const res = await send(gw.url, { method: 'POST', path: '/v1/embeddings', headers: { 'x-gateway-api-key': TEST_KEY, 'content-encoding': encoding }, body: '{}' });
      expect(res.status, encoding).toBe(415);
      expect(res.json().error).toMatchObject({ code: 'unsupported_content_encoding', param: 'content-encoding' });
    }
    for (const encoding of ['identity', 'IDENTITY']) {
      const res = await send(gw.url, { method: 'POST', path: '/v1/embeddings', headers: { 'x-gateway-api-key': TEST_KEY, 'content-encoding': encoding }, body: '{}' });
      expect(res.status, encoding).not.toBe(415);
    }
  });
});

describe('aborted uploads and departed clients', () => {
  it('survives a client that promises a body and disconnects half way', async () => {
    const before = uploads.length;
    await sendRaw(
      gw.url,
      `POST /v1/embeddings HTTP/1.1\r\nhost: x\r\nx-gateway-api-key: ${TEST_KEY}\r\ncontent-length: 10000\r\n\r\n${'a'.repeat(100)}`,
      { waitMs: 200 },
    );
    await expect.poll(() => uploads.length).toBe(before + 1);
    expect(uploads[before]).toEqual({ outcome: 'ClientAbortedError', signalAborted: true });
    expect(gw.logger.lines.filter((line) => line.level === 'error')).toEqual([]);
    await expectAlive();
  });

  it('survives a chunked upload cut mid-chunk', async () => {
    await sendRaw(
      gw.url,
      `POST /v1/embeddings HTTP/1.1\r\nhost: x\r\nx-gateway-api-key: ${TEST_KEY}\r\ntransfer-encoding: chunked\r\n\r\nff\r\nabc`,
      { waitMs: 200, endAfterWrite: true },
    );
    await expectAlive();
  });

  it('fires the request signal when the client leaves during a streamed response', async () => {
    const socket = connect(Number(new URL(gw.url).port), '127.0.0.1');
    await new Promise<void>((resolve) => {
      socket.on('data', () => resolve());
      socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nx-gateway-api-key: ${TEST_KEY}\r\ncontent-length: 2\r\n\r\n{}`);
    });
    socket.destroy();
    await streamAborted;
    await expectAlive();
  });

  it('survives a client that aborts while sending through node:http', async () => {
    await new Promise<void>((resolve) => {
      const url = new URL(gw.url);
      const req = request({ host: url.hostname, port: url.port, method: 'POST', path: '/v1/embeddings', headers: { 'x-gateway-api-key': TEST_KEY } });
      req.on('error', () => resolve());
      req.write('x'.repeat(1000));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    await expectAlive();
  });
});

describe('random bytes', () => {
  const httpish = fc.oneof(
    fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes)),
    fc
      .tuple(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'X', ''),
        fc.string({ maxLength: 40 }),
        fc.array(fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 60 })), { maxLength: 6 }),
        fc.string({ maxLength: 200 }),
      )
      .map(([method, path, headers, body]) =>
        Buffer.from(`${method} /v1/${path} HTTP/1.1\r\nhost: x\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body}`, 'utf8'),
      ),
  );

  test.prop([httpish], { numRuns: 60 })('never crash the server', async (bytes) => {
    await sendRaw(gw.url, bytes, { waitMs: 50, endAfterWrite: true });
    const res = await send(gw.url, { path: '/v1/health' });
    expect(res.status).toBe(200);
  });
});

describe('slow clients', () => {
  it('answers 408 client_request_timeout to a client that never finishes its headers', async () => {
    const slow = await startTestGateway({ timeouts: { headersMs: 150, requestMs: 300 } });
    try {
      const answer = await sendRaw(slow.url, 'GET /v1/health HTTP/1.1\r\nhost: x\r\nx-partial: ', { waitMs: 3000 });
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toContain('"code":"client_request_timeout"');
      expect((await send(slow.url, { path: '/v1/health' })).status).toBe(200);
    } finally {
      await slow.close();
    }
  });
});
