// Connection-scoped headers never cross the gateway, in either direction; everything else does,
// untouched. Checked as a property of the pure functions and end to end over real sockets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import {
  HOP_BY_HOP_HEADERS,
  REQUEST_ONLY_DROPPED,
  requestHeadersForUpstream,
  responseHeadersForClient,
} from '../../runtime/upstream/hop-by-hop.ts';
import { closeAllPools } from '../../runtime/upstream/pools.ts';
import { startVendorMock, VENDOR_MOCK_KEY } from '../mocks/vendor/index.ts';
import type { VendorMock } from '../mocks/vendor/index.ts';
import { startProxy } from './proxy-harness.ts';
import type { Proxy } from './proxy-harness.ts';
import { request } from 'undici';

const token = fc.stringMatching(/^[a-z0-9!#$%&'*+.^_`|~-]{1,16}$/);
/** Names drawn partly from the hop-by-hop set so collisions are common, partly arbitrary tokens. */
const headerName = fc.oneof(fc.constantFrom(...HOP_BY_HOP_HEADERS, ...REQUEST_ONLY_DROPPED, 'accept-encoding', 'authorization', 'x-a', 'x-b'), token);
const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,30}$/);

/** A Connection value naming some headers, with the list syntax's optional spaces and empty items. */
const connectionValue = fc
  .array(fc.oneof(headerName, fc.constantFrom('close', 'keep-alive', '')), { maxLength: 5 })
  .chain((names) => fc.constantFrom(names.join(','), names.join(', '), names.map((n) => ` ${n.toUpperCase()} `).join(',')));

describe('hop-by-hop header stripping', () => {
  test.prop({ headers: fc.dictionary(headerName, headerValue, { maxKeys: 12 }), connection: fc.option(connectionValue) }, { numRuns: 300 })(
    'requests keep exactly the end-to-end headers, values untouched, and ask for an uncompressed answer',
    ({ headers, connection }) => {
      const input: Record<string, string> = { ...headers };
      if (connection !== null) input.connection = connection;
      const nominated = new Set(
        (input.connection ?? '')
          .split(',')
          .map((t) => t.trim().toLowerCase())
          .filter((t) => t !== ''),
      );
      const out = requestHeadersForUpstream(input);
      expect(out['accept-encoding']).toBe('identity');
      for (const name of Object.keys(input).filter((n) => n !== 'accept-encoding')) {
        const dropped = HOP_BY_HOP_HEADERS.has(name) || REQUEST_ONLY_DROPPED.has(name) || nominated.has(name);
        expect(Object.hasOwn(out, name)).toBe(!dropped);
        if (!dropped) expect(out[name]).toBe(input[name]);
      }
      expect(Object.keys(out).every((name) => name === 'accept-encoding' || Object.hasOwn(input, name))).toBe(true);
      expect(requestHeadersForUpstream(out)).toEqual(out);
    },
  );

  test.prop(
    {
      headers: fc.dictionary(headerName, fc.oneof(headerValue, fc.array(headerValue, { minLength: 1, maxLength: 3 })), { maxKeys: 12 }),
      connection: fc.option(fc.array(connectionValue, { minLength: 1, maxLength: 2 })),
    },
    { numRuns: 300 },
  )('responses drop hop-by-hop and nominated headers, keep host, content-length and repeated values', ({ headers, connection }) => {
    const input: Record<string, string | string[]> = { ...headers };
    if (connection !== null) input.connection = connection.length === 1 ? connection[0] : connection;
    const nominated = new Set(
      [input.connection ?? []]
        .flat()
        .flatMap((v) => v.split(','))
        .map((t) => t.trim().toLowerCase())
        .filter((t) => t !== ''),
    );
    const out = responseHeadersForClient(input);
    for (const name of Object.keys(input)) {
      const dropped = HOP_BY_HOP_HEADERS.has(name) || nominated.has(name);
      expect(Object.hasOwn(out, name)).toBe(!dropped);
      if (!dropped) expect(out[name]).toEqual(input[name]);
    }
  });

  it('keeps a header literally named __proto__ as a header', () => {
    const input = JSON.parse('{"__proto__": "x", "te": "trailers"}') as Record<string, string>;
    const out = requestHeadersForUpstream(input);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'accept-encoding']);
  });
});

describe('hop-by-hop stripping on the wire', () => {
  let mock: VendorMock;
  let proxy: Proxy;
  let origin: Server;
  let originProxy: Proxy;

  beforeAll(async () => {
    mock = await startVendorMock();
    proxy = await startProxy(mock.url);
    // A provider that marks its own headers hop-by-hop and repeats set-cookie.
    origin = createServer((_req, res) => {
      res.setHeader('connection', 'x-internal-route');
      res.setHeader('x-internal-route', 'node-7');
      res.setHeader('proxy-authenticate', 'Basic realm="inner"');
      res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
      res.setHeader('x-end-to-end', 'kept');
      res.end('ok');
    });
    origin.listen(0, '127.0.0.1');
    await once(origin, 'listening');
    originProxy = await startProxy(`http://127.0.0.1:${(origin.address() as AddressInfo).port}`);
  });

  afterAll(async () => {
    await proxy.close();
    await originProxy.close();
    await closeAllPools();
    origin.close();
    await mock.close();
  });

  it('does not send the client connection headers upstream', async () => {
    // A raw socket, because HTTP clients refuse to send several of these headers at all.
    const socket = connect(Number(new URL(proxy.url).port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      [
        'POST /v1/hop/check HTTP/1.1',
        'Host: gateway.example',
        `Authorization: Bearer ${VENDOR_MOCK_KEY}`,
        'Connection: keep-alive, X-Session-Secret',
        'Keep-Alive: timeout=5',
        'X-Session-Secret: s3cr3t',
        'TE: trailers',
        'Trailer: x-checksum',
        'Proxy-Authorization: Basic Zm9vOmJhcg==',
        'Upgrade: h2c',
        'X-Kept: yes',
        'Accept-Encoding: gzip, br',
        'Content-Length: 4',
        '',
        'body',
      ].join('\r\n'),
    );
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    while (!answer.includes('"body_base64"')) await once(socket, 'data');
    socket.destroy();
    expect(answer.startsWith('HTTP/1.1 200')).toBe(true);
    const seen = mock.requests.at(-1)!;
    expect(seen.body).toBe('body');
    expect(seen.headers['x-kept']).toBe('yes');
    // The gateway reads answers: it asks for them uncompressed whatever the client accepts.
    expect(seen.headers['accept-encoding']).toBe('identity');
    for (const name of ['x-session-secret', 'keep-alive', 'te', 'trailer', 'proxy-authorization', 'upgrade']) {
      expect(seen.headers[name], name).toBeUndefined();
    }
    // undici's own request line: the client's Host did not leak through.
    expect(seen.headers.host).toBe(new URL(mock.url).host);
  });

  it('does not hand the provider connection headers to the client', async () => {
    const res = await request(`${originProxy.url}/anything`);
    expect(await res.body.text()).toBe('ok');
    expect(res.headers['x-internal-route']).toBeUndefined();
    expect(res.headers['proxy-authenticate']).toBeUndefined();
    expect(res.headers['x-end-to-end']).toBe('kept');
    expect(res.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/']);
  });
});
