// The service side of Signature Version 4, written from the published algorithm (not from the
// gateway's signer): rebuild the canonical request from what arrived on the wire, derive the
// signing key from the secret the mock holds, and compare signatures in constant time.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface MockCredential {
  secretAccessKey: string;
  sessionToken?: string;
}

export interface VerifyInput {
  method: string;
  /** Raw path as received (percent-encoded), no query. */
  path: string;
  query: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type Verdict =
  | { ok: true; accessKeyId: string }
  | { ok: false; status: number; errorType: string; message: string };

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes every byte outside the unreserved set, upper-case hex (RFC 3986 §2.1). */
function uriEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && UNRESERVED.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Each segment of the (already encoded) path is encoded again, after resolving dot segments. */
function canonicalUri(path: string): string {
  const kept: string[] = [];
  for (const segment of path.split('/').filter((s) => s !== '')) {
    if (segment === '.') continue;
    if (segment === '..') kept.pop();
    else kept.push(uriEncode(segment));
  }
  return `/${kept.join('/')}${kept.length > 0 && path.endsWith('/') ? '/' : ''}`;
}

function canonicalQueryString(query: string): string {
  if (query === '') return '';
  const pairs: [string, string][] = [];
  for (const piece of query.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    const key = decode(eq < 0 ? piece : piece.slice(0, eq));
    const value = eq < 0 ? '' : decode(piece.slice(eq + 1));
    pairs.push([uriEncode(key), uriEncode(value)]);
  }
  pairs.sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmacSha256(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

const AUTH = /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/;
const SKEW_MS = 5 * 60_000;

const invalidSignature = (message: string): Verdict => ({ ok: false, status: 403, errorType: 'InvalidSignatureException', message });

export function verifySigV4(input: VerifyInput, credentials: ReadonlyMap<string, MockCredential>, region: string, service: string, now: number = Date.now()): Verdict {
  const authorization = input.headers.authorization;
  if (typeof authorization !== 'string') return { ok: false, status: 403, errorType: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const parsed = AUTH.exec(authorization);
  if (parsed === null) return { ok: false, status: 403, errorType: 'IncompleteSignatureException', message: 'Authorization header requires Credential, SignedHeaders and Signature.' };
  const [, accessKeyId, day, scopeRegion, scopeService, signedHeaderList, signature] = parsed;
  const credential = credentials.get(accessKeyId);
  if (credential === undefined) return { ok: false, status: 403, errorType: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  if (scopeRegion !== region || scopeService !== service) return invalidSignature(`Credential should be scoped to a valid region and service (${region}/${service}).`);
  const date = input.headers['x-amz-date'];
  if (typeof date !== 'string' || !/^\d{8}T\d{6}Z$/.test(date)) return invalidSignature('Missing or malformed X-Amz-Date header.');
  if (date.slice(0, 8) !== day) return invalidSignature('Credential date does not match X-Amz-Date.');
  const signedAt = Date.UTC(+date.slice(0, 4), +date.slice(4, 6) - 1, +date.slice(6, 8), +date.slice(9, 11), +date.slice(11, 13), +date.slice(13, 15));
  if (Math.abs(now - signedAt) > SKEW_MS) return invalidSignature(`Signature expired: ${date} is now earlier or later than the allowed window.`);
  const signedHeaders = signedHeaderList.split(';');
  if (!signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date')) return invalidSignature('Host and X-Amz-Date must be signed.');
  if (credential.sessionToken !== undefined) {
    if (input.headers['x-amz-security-token'] !== credential.sessionToken || !signedHeaders.includes('x-amz-security-token')) {
      return { ok: false, status: 403, errorType: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
    }
  }
  const payloadHash = sha256Hex(input.body);
  const declared = input.headers['x-amz-content-sha256'];
  if (declared !== undefined && declared !== payloadHash) return invalidSignature('The provided x-amz-content-sha256 header does not match what was computed.');
  const canonicalHeaders = signedHeaders.map((name) => {
    const value = input.headers[name];
    const text = Array.isArray(value) ? value.join(',') : value ?? '';
    return `${name}:${text.trim().replace(/ +/g, ' ')}\n`;
  }).join('');
  const canonicalRequest = `${input.method}\n${canonicalUri(input.path)}\n${canonicalQueryString(input.query)}\n${canonicalHeaders}\n${signedHeaderList}\n${payloadHash}`;
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${date}\n${scope}\n${sha256Hex(canonicalRequest)}`;
  let key = hmacSha256(`AWS4${credential.secretAccessKey}`, day);
  for (const part of [region, service, 'aws4_request']) key = hmacSha256(key, part);
  const expected = createHmac('sha256', key).update(stringToSign).digest();
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return invalidSignature('The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.');
  }
  return { ok: true, accessKeyId };
}
