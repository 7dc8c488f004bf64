// SigV4: the gateway's signer against the published test vectors, and against the cloud C mock's
// own verifier (written separately from the published algorithm) on generated requests; any
// tampering with what was signed must be caught.
import { describe, expect, it } from 'vitest';
import { test } from '@fast-check/vitest';
import fc from 'fast-check';
import { signV4 } from '../../runtime/providers/cloudc/sigv4.ts';
import { verifySigV4 } from '../mocks/cloudc/index.ts';
import type { MockCredential } from '../mocks/cloudc/sigv4-verifier.ts';

const VECTOR_KEY = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const VECTOR_SCOPE = { region: 'us-east-1', service: 'service' };
const VECTOR_DATE = new Date('2015-08-30T12:36:00Z');

describe('published Signature Version 4 test vectors', () => {
  it.each([
    ['get-vanilla', 'GET', '', '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31'],
    ['post-vanilla', 'POST', '', '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b'],
    ['get-vanilla-query-order-key-case', 'GET', 'Param2=value2&Param1=value1', 'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500'],
  ])('%s', (_name, method, query, signature) => {
    const headers = signV4({ method, host: 'example.amazonaws.com', path: '/', query, headers: {}, body: null }, VECTOR_KEY, VECTOR_SCOPE, VECTOR_DATE);
    expect(headers).toEqual({
      'x-amz-date': '20150830T123600Z',
      authorization: `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=${signature}`,
    });
  });
});

const segment = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/),
  fc.string({ minLength: 1, maxLength: 10, unit: 'grapheme' }).filter((s) => s !== '.' && s !== '..'),
);
const queryPair = fc.tuple(fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/), fc.string({ maxLength: 10 }));
const requestArb = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
  segments: fc.array(segment, { minLength: 1, maxLength: 4 }),
  query: fc.array(queryPair, { maxLength: 3 }),
  body: fc.uint8Array({ maxLength: 200 }),
  contentType: fc.option(fc.constantFrom('application/json', 'text/plain;  charset=utf-8'), { nil: undefined }),
  region: fc.constantFrom('us-east-1', 'eu-west-3', 'ap-southeast-2'),
  session: fc.option(fc.stringMatching(/^[A-Za-z0-9+/=]{10,40}$/), { nil: undefined }),
  secret: fc.stringMatching(/^[A-Za-z0-9+/]{20,40}$/),
});

type Generated = typeof requestArb extends fc.Arbitrary<infer T> ? T : never;

function signedRequest(r: Generated, now: Date) {
  // The path as it goes on the wire: each segment percent-encoded once (a model id `a:0` is `a%3A0`).
  const path = `/${r.segments.map((s) => encodeURIComponent(s)).join('/')}`;
  const query = new URLSearchParams(r.query).toString();
  const body = Buffer.from(r.body);
  const headers: Record<string, string> = r.contentType === undefined ? {} : { 'content-type': r.contentType };
  const added = signV4({ method: r.method, host: '127.0.0.1:8443', path, query, headers, body }, { accessKeyId: 'AKIATEST', secretAccessKey: r.secret, sessionToken: r.session }, { region: r.region, service: 'bedrock' }, now);
  return { method: r.method, path, query, body, headers: { host: '127.0.0.1:8443', ...headers, ...added } as Record<string, string> };
}

const credentialsFor = (r: Generated) => new Map<string, MockCredential>([['AKIATEST', { secretAccessKey: r.secret, sessionToken: r.session }]]);

describe('the signer against the mock service\'s independent verifier', () => {
  test.prop([requestArb])('every signed request verifies', (r) => {
    const now = new Date();
    const signed = signedRequest(r, now);
    expect(verifySigV4(signed, credentialsFor(r), r.region, 'bedrock', now.getTime())).toEqual({ ok: true, accessKeyId: 'AKIATEST' });
  });

  test.prop([requestArb, fc.constantFrom('body', 'path', 'query', 'method', 'secret', 'region', 'content-type', 'late')])('any change to what was signed fails', (r, change) => {
    const now = new Date();
    const signed = signedRequest(r, now);
    let credentials = credentialsFor(r);
    let region: string = r.region;
    let at = now.getTime();
    switch (change) {
      case 'body': signed.body = Buffer.concat([signed.body, Buffer.from('x')]); break;
      case 'path': signed.path = `${signed.path}/extra`; break;
      case 'query': signed.query = signed.query === '' ? 'a=1' : `${signed.query}&z=2`; break;
      case 'method': signed.method = signed.method === 'POST' ? 'PUT' : 'POST'; break;
      case 'secret': credentials = new Map([['AKIATEST', { secretAccessKey: `${r.secret}x`, sessionToken: r.session }]]); break;
      case 'region': region = 'us-west-2'; break;
      case 'content-type': signed.headers['content-type'] = 'application/xml'; break;
      case 'late': at += 6 * 60_000; break;
    }
    const verdict = verifySigV4(signed, credentials, region, 'bedrock', at);
    // A content-type that was never signed may change freely; everything else must be caught.
    if (change === 'content-type' && r.contentType === undefined) expect(verdict.ok).toBe(true);
    else expect(verdict.ok).toBe(false);
  });
});
