// The x-gateway-* option headers: parsers on their own, and metadata end to end over HTTP.
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../runtime/core/errors.ts';
import {
  headerText,
  MAX_CACHE_NAMESPACE_LENGTH,
  MAX_METADATA_BYTES,
  MAX_REQUEST_TIMEOUT_MS,
  parseCacheForceRefresh,
  parseCacheNamespace,
  parseForwardHeaders,
  parseMetadata,
  parseRequestTimeout,
} from '../../runtime/core/gateway-headers.ts';
import { sendJson } from '../../runtime/server/respond.ts';
import { errorOf, send, sendRaw, startTestGateway, TEST_KEY } from './helpers.ts';

/** JSON with every non-ASCII character escaped, as a careful client puts it in a header. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function invalidHeader(fn: () => unknown, header: string): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('invalid_header');
    expect((err as GatewayError).param).toBe(header);
    expect((err as GatewayError).message).toContain(header);
    return;
  }
  throw new Error('expected invalid_header');
}

describe('parsers', () => {
  it('reads metadata objects of strings, including the special keys', () => {
    expect(parseMetadata(undefined)).toEqual({});
    expect(parseMetadata('{"_user":"u1","_prompt":"p","_organisation":"o","_environment":"prod","team":"a"}')).toEqual({
      _user: 'u1',
      _prompt: 'p',
      _organisation: 'o',
      _environment: 'prod',
      team: 'a',
    });
  });

  it('reads a metadata key written with an escape as itself, after another client sent a key with a backslash (V8 bug: nodejs/node#63785)', () => {
    parseMetadata('{"team":"a","x\\\\":"poison"}');
    expect(Object.keys(parseMetadata('{"team":"a","x\\n":"b"}'))).toEqual(['team', 'x\n']);
  });

  it('rejects metadata that is not an object of strings', () => {
    for (const bad of ['', 'null', '[]', '"s"', '1', '{"a":1}', '{"_user":null}', '{"a":{"b":"c"}}', '{"a":["x"]}', '{"a":true}', '{a:1}']) {
      invalidHeader(() => parseMetadata(bad), 'x-gateway-metadata');
    }
    // Located like every text that must be JSON.
    expect(() => parseMetadata('{"team": search}')).toThrow("it is not valid JSON at character 10: unexpected 's' where a value should be (strings go in double quotes).");
    // Each wrong value is named, with its article.
    expect(() => parseMetadata('{"a":{"b":"c"}}')).toThrow('"a" is an object.');
    expect(() => parseMetadata('{"a":["x"]}')).toThrow('"a" is an array.');
    expect(() => parseMetadata('{"a":1}')).toThrow('"a" is a number.');
  });

  it('reads metadata of at most 4096 bytes, counted as sent (a UTF-8 character is its bytes)', () => {
    const sized = (bytes: number) => JSON.stringify({ note: 'x'.repeat(bytes - 11) });
    expect(parseMetadata(sized(MAX_METADATA_BYTES))).toEqual({ note: 'x'.repeat(MAX_METADATA_BYTES - 11) });
    invalidHeader(() => parseMetadata(sized(MAX_METADATA_BYTES + 1)), 'x-gateway-metadata');
    expect(() => parseMetadata(sized(MAX_METADATA_BYTES + 1))).toThrow('x-gateway-metadata must be at most 4096 bytes; it has 4097.');
    // Node hands a header over byte by byte: 'é' as sent is two characters here.
    const latin1 = Buffer.from(JSON.stringify({ note: 'é'.repeat(2043) }), 'utf8').toString('latin1');
    expect(latin1.length).toBe(4097);
    invalidHeader(() => parseMetadata(latin1), 'x-gateway-metadata');
  });

  it('reads request timeouts as positive integers of milliseconds', () => {
    expect(parseRequestTimeout(undefined)).toBeNull();
    expect(parseRequestTimeout('1')).toBe(1);
    expect(parseRequestTimeout(' 30000 ')).toBe(30000);
    expect(parseRequestTimeout(String(MAX_REQUEST_TIMEOUT_MS))).toBe(MAX_REQUEST_TIMEOUT_MS);
    for (const bad of ['', '0', '-1', '1.0', '1e3', 'abc', '0x10', String(MAX_REQUEST_TIMEOUT_MS + 1)]) {
      invalidHeader(() => parseRequestTimeout(bad), 'x-gateway-request-timeout');
    }
  });

  it('reads forward headers as a comma list or a JSON array, lower-cased without repeats', () => {
    expect(parseForwardHeaders(undefined)).toEqual([]);
    expect(parseForwardHeaders('')).toEqual([]);
    expect(parseForwardHeaders('X-Custom, x-other ,X-CUSTOM')).toEqual(['x-custom', 'x-other']);
    expect(parseForwardHeaders('["X-My-Header","anthropic-beta"]')).toEqual(['x-my-header', 'anthropic-beta']);
    for (const bad of ['a,,b', '[1]', '["a b"]', '{"a":1}', '[', 'a:b']) invalidHeader(() => parseForwardHeaders(bad), 'x-gateway-forward-headers');
  });

  it('reads the cache headers', () => {
    expect(parseCacheForceRefresh(undefined)).toBe(false);
    expect(parseCacheForceRefresh('true')).toBe(true);
    expect(parseCacheForceRefresh('FALSE')).toBe(false);
    invalidHeader(() => parseCacheForceRefresh('1'), 'x-gateway-cache-force-refresh');
    expect(parseCacheNamespace(undefined)).toBeNull();
    expect(parseCacheNamespace('  ')).toBeNull();
    expect(parseCacheNamespace('team-a')).toBe('team-a');
  });

  it('reads a cache namespace of at most 256 characters, what DELETE /v1/cache can purge by (UTF-8 read as characters)', () => {
    expect(parseCacheNamespace('n'.repeat(MAX_CACHE_NAMESPACE_LENGTH))).toBe('n'.repeat(256));
    expect(parseCacheNamespace(Buffer.from('é'.repeat(256), 'utf8').toString('latin1'))).toBe('é'.repeat(256));
    invalidHeader(() => parseCacheNamespace('n'.repeat(257)), 'x-gateway-cache-namespace');
    expect(() => parseCacheNamespace('n'.repeat(257))).toThrow('x-gateway-cache-namespace must be at most 256 characters; it has 257.');
  });

  test.prop([fc.string({ unit: 'grapheme' })], { numRuns: 200 })('reads UTF-8 sent as raw header bytes', (text) => {
    expect(headerText(Buffer.from(text, 'utf8').toString('latin1'))).toBe(text);
  });
});

describe('over HTTP', () => {
  let gw: Awaited<ReturnType<typeof startTestGateway>>;

  beforeAll(async () => {
    gw = await startTestGateway({
      async setup({ gateway }) {
        gateway.registerHandler('inference.embeddings', async (ctx) =>
          sendJson(ctx.res, 200, {
            metadata: ctx.metadata,
            requestTimeoutMs: ctx.requestTimeoutMs,
            forwardHeaders: ctx.forwardHeaders,
            cacheForceRefresh: ctx.cacheForceRefresh,
            cacheNamespace: ctx.cacheNamespace,
          }),
        );
      },
    });
  });

  afterAll(async () => {
    await gw?.close();
  });

  const post = (headers: Record<string, string>) =>
    send(gw.url, { method: 'POST', path: '/v1/embeddings', headers: { 'x-gateway-api-key': TEST_KEY, ...headers }, body: '{}' });

  it('hands every parsed option header to the handler', async () => {
    const res = await post({
      'x-gateway-metadata': '{"_user":"ann"}',
      'x-gateway-request-timeout': '2500',
      'x-gateway-forward-headers': 'X-Trace-Me',
      'x-gateway-cache-force-refresh': 'true',
      'x-gateway-cache-namespace': 'ns1',
    });
    expect(res.json()).toEqual({
      metadata: { _user: 'ann' },
      requestTimeoutMs: 2500,
      forwardHeaders: ['x-trace-me'],
      cacheForceRefresh: true,
      cacheNamespace: 'ns1',
    });
  });

  it('refuses an x-gateway-* header it does not read, with a suggestion for a misspelt one, and accepts every one it reads', async () => {
    const misspelt = await post({ 'X-Gateway-Cache-Namespce': 'ns1' });
    expect(misspelt.status).toBe(400);
    expect(errorOf(misspelt)).toMatchObject({ code: 'invalid_header', param: 'x-gateway-cache-namespce' });
    expect(errorOf(misspelt).message).toContain('did you mean "x-gateway-cache-namespace"?');
    const unknown = await post({ 'x-gateway-cache-max-age': '5' });
    expect(errorOf(unknown)).toMatchObject({ code: 'invalid_header', param: 'x-gateway-cache-max-age' });
    // Response headers are not request options either.
    expect((await post({ 'x-gateway-cache-status': 'HIT' })).status).toBe(400);
    // Other x- headers are the client's own business.
    expect((await post({ 'x-gateway': '1', 'x-gatewayish-thing': '1', 'x-request-id': 'r1' })).status).toBe(200);
    const every = {
      'x-gateway-config': 'c', 'x-gateway-provider': 'openai', 'x-gateway-custom-host': 'http://127.0.0.1:1', 'x-gateway-virtual-key': 'vk',
      'x-gateway-trace-id': 't1', 'x-gateway-clouda-resource-name': 'r', 'x-gateway-clouda-deployment-id': 'd', 'x-gateway-clouda-api-version': 'v',
      'x-gateway-clouda-model-name': 'm', 'x-gateway-cloudb-project-id': 'p', 'x-gateway-cloudb-region': 'r', 'x-gateway-cloudb-service-account-json': '{}',
      'x-gateway-cloudc-access-key-id': 'a', 'x-gateway-cloudc-secret-access-key': 's', 'x-gateway-cloudc-session-token': 't', 'x-gateway-cloudc-region': 'r',
      'x-gateway-vendor-organization': 'o', 'x-gateway-vendor-project': 'p',
    };
    expect((await post(every)).status).toBe(200);
  });

  /** Sends one header line per [name, value] pair, as written (repeats kept); returns status and body. */
  async function postLines(lines: readonly (readonly [string, string])[]): Promise<{ status: number; body: any }> {
    const head = `POST /v1/embeddings HTTP/1.1\r\nhost: x\r\nconnection: close\r\nx-gateway-api-key: ${TEST_KEY}\r\ncontent-length: 2\r\n`;
    const answer = await sendRaw(gw.url, Buffer.from(`${head}${lines.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n{}`));
    const text = Buffer.from(answer, 'latin1').toString('utf8');
    return { status: Number(text.slice(9, 12)), body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) };
  }

  const oneValued = ['x-gateway-config', 'x-gateway-trace-id', 'x-gateway-metadata', 'x-gateway-cache-namespace', 'x-gateway-request-timeout', 'x-gateway-cloudb-region'];
  const anyCase = (name: string) => fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((up) => [...name].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(''));

  test.prop([fc.constantFrom(...oneValued).chain((name) => fc.tuple(fc.constant(name), anyCase(name), anyCase(name))), fc.nat(3)], { numRuns: 30 })(
    'refuses a one-valued gateway header sent twice (in any case), which node would join into "a, b", naming it',
    async ([name, first, second], between) => {
      const others = Array.from({ length: between }, (_, i) => [`x-other-${i}`, 'v'] as const);
      const res = await postLines([[first, '1'], ...others, [second, '1']]);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_header', param: name });
      expect(res.body.error.message).toContain('more than once');
    },
  );

  it('joins a repeated x-gateway-forward-headers, a list as HTTP defines repeats of one', async () => {
    const res = await postLines([['x-gateway-forward-headers', 'X-A'], ['X-Gateway-Forward-Headers', 'x-b, x-a']]);
    expect(res.status).toBe(200);
    expect(res.body.forwardHeaders).toEqual(['x-a', 'x-b']);
  });

  const metadataObject = fc.dictionary(fc.string({ maxLength: 20 }), fc.string({ maxLength: 40, unit: 'grapheme' }), { maxKeys: 8 });

  /** Sends the header as raw UTF-8 bytes, as curl does with non-ASCII text; returns the parsed body. */
  async function postRawUtf8(metadataHeader: string): Promise<{ status: number; body: any }> {
    const head = `POST /v1/embeddings HTTP/1.1\r\nhost: x\r\nconnection: close\r\nx-gateway-api-key: ${TEST_KEY}\r\ncontent-length: 2\r\nx-gateway-metadata: `;
    const answer = Buffer.from(await sendRaw(gw.url, Buffer.concat([Buffer.from(head), Buffer.from(metadataHeader, 'utf8'), Buffer.from('\r\n\r\n{}')])), 'latin1');
    const split = answer.indexOf('\r\n\r\n');
    return { status: Number(answer.subarray(9, 12).toString()), body: JSON.parse(answer.subarray(split + 4).toString('utf8')) };
  }

  test.prop([metadataObject], { numRuns: 40 })('accepts any JSON object of strings and hands it over unchanged', async (metadata) => {
    const res = await post({ 'x-gateway-metadata': asciiJson(metadata) });
    expect(res.status).toBe(200);
    expect(res.json().metadata).toEqual(metadata);
  });

  test.prop([metadataObject], { numRuns: 40 })('reads metadata sent as raw UTF-8 bytes', async (metadata) => {
    const res = await postRawUtf8(JSON.stringify(metadata));
    expect(res.status).toBe(200);
    expect(res.body.metadata).toEqual(metadata);
  });

  const notAnObjectOfStrings = fc.oneof(
    fc.jsonValue().filter((v) => v === null || typeof v !== 'object' || Array.isArray(v)),
    fc
      .dictionary(fc.string({ maxLength: 10 }), fc.jsonValue(), { minKeys: 1, maxKeys: 5 })
      .filter((o) => Object.values(o).some((v) => typeof v !== 'string')),
  );

  test.prop([notAnObjectOfStrings], { numRuns: 60 })('answers anything else with 400 invalid_header and the error body', async (value) => {
    const res = await post({ 'x-gateway-metadata': asciiJson(value) });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_header', type: 'invalid_request_error', param: 'x-gateway-metadata' });
  });

  test.prop([fc.string({ maxLength: 60 }).filter((s) => !/^\s*[[{"0-9tfn-]/.test(s))], { numRuns: 30 })('answers text that is not JSON with 400', async (text) => {
    const res = await post({ 'x-gateway-metadata': asciiJson(text).slice(1, -1) || 'x' });
    expect(res.status).toBe(400);
    expect(errorOf(res).param).toBe('x-gateway-metadata');
  });
});

describe('x-gateway-forward-headers never forwards the gateway\'s own headers', () => {
  it('refuses x-gateway-* names (the gateway key, cloud credentials sent as headers) with 400 invalid_header', () => {
    for (const value of ['x-gateway-api-key', 'X-Gateway-Api-Key', 'x-request-id, x-gateway-cloudc-secret-access-key', '["x-gateway-config"]']) {
      expect(() => parseForwardHeaders(value)).toThrow(/never sent to a provider/);
    }
    expect(parseForwardHeaders('x-request-id, X-Trace')).toEqual(['x-request-id', 'x-trace']);
  });

  it('refuses the headers of the client\'s connection (hop-by-hop, host, content-length, expect), which the transport drops', () => {
    for (const name of ['connection', 'Keep-Alive', 'transfer-encoding', 'TE', 'upgrade', 'proxy-authorization', 'host', 'Content-Length', 'expect']) {
      expect(() => parseForwardHeaders(`x-request-id, ${name}`)).toThrow(/describes the connection to the gateway/);
    }
  });

  it('refuses accept-encoding: every provider is asked for an uncompressed answer, which the gateway reads', () => {
    for (const name of ['accept-encoding', 'Accept-Encoding']) {
      expect(() => parseForwardHeaders(`x-request-id, ${name}`)).toThrow(/always asks for them uncompressed/);
    }
  });
});
