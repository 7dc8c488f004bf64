// AWS Signature Version 4 (HMAC-SHA256) for the cloud C family: canonical request → string to
// sign → signature with the date/region/service-scoped key. The path is escaped once more, as for
// every service but object storage, so an encoded model id (`a%3A0`) is signed as `a%253A0`.
import { createHash, createHmac } from 'node:crypto';
import { kept } from '../../core/memo.ts';

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface SigV4Request {
  method: string;
  /** `host[:port]` as the Host header carries it. */
  host: string;
  /** Path as it goes on the wire (already percent-encoded), without the query. */
  path: string;
  /** Query string without `?` (empty when none). */
  query: string;
  /** Lower-cased names; the ones signed are host, content-type and the x-amz-* added here. */
  headers: Record<string, string>;
  body: Buffer | null;
}

export interface SigV4Scope {
  region: string;
  service: string;
}

const EMPTY_HASH = createHash('sha256').update('').digest('hex');

/** `20150830T123600Z` */
export function amzDate(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/**
 * Payload hashes per body: a try is signed anew (the signature holds its time), but its body is the
 * one the last try sent (mapped-body.ts, or the client's own bytes), and hashing 32 MB again on each of
 * up to 200 tries took seconds of the serving thread. Bodies are never written to once made.
 */
const payloadHashes = new WeakMap<Buffer, string>();

function hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** RFC 3986 escaping: everything but unreserved characters. */
export function escapeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const normalized = `/${segments.join('/')}${segments.length > 0 && path.endsWith('/') ? '/' : ''}`;
  return escapeRfc3986(normalized).replace(/%2F/g, '/');
}

function canonicalQuery(query: string): string {
  if (query === '') return '';
  const pairs = [...new URLSearchParams(query)].map(([k, v]) => [escapeRfc3986(k), escapeRfc3986(v)] as const);
  pairs.sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

/** The headers to add to `request` (authorization, x-amz-date, x-amz-security-token). */
export function signV4(request: SigV4Request, credentials: SigV4Credentials, scope: SigV4Scope, now: Date = new Date()): Record<string, string> {
  const date = amzDate(now);
  const day = date.slice(0, 8);
  const payloadHash = request.body === null || request.body.length === 0 ? EMPTY_HASH : kept(payloadHashes, request.body, hex);
  // x-amz-content-sha256 is object storage's; the payload hash is part of the canonical request anyway.
  const added: Record<string, string> = { 'x-amz-date': date };
  if (credentials.sessionToken !== undefined) added['x-amz-security-token'] = credentials.sessionToken;
  const signed: Record<string, string> = { host: request.host, ...added };
  if (request.headers['content-type'] !== undefined) signed['content-type'] = request.headers['content-type'];
  const names = Object.keys(signed).sort();
  const canonicalHeaders = names.map((name) => `${name}:${signed[name].trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [request.method, canonicalPath(request.path), canonicalQuery(request.query), canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', date, credentialScope, hex(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), scope.region), scope.service), 'aws4_request');
  const signature = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  added.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return added;
}
