// Parsing of the optional x-gateway-* request headers (SPEC §5.3). Each parser takes the raw value
// as node:http delivers it and throws `invalid_header` naming the header on anything malformed.
import { GatewayError } from './errors.ts';
import { neverForwardedBecause } from '../../compiler/config/forwarding.ts';
import {
  API_KEY_HEADER, CACHE_FORCE_REFRESH_HEADER, CACHE_NAMESPACE_HEADER, CONFIG_HEADER, CUSTOM_HOST_HEADER, FORWARD_HEADERS_HEADER, GATEWAY_HEADER_PREFIX,
  METADATA_HEADER, PROVIDER_HEADER, REQUEST_TIMEOUT_HEADER, TRACE_ID_HEADER, VIRTUAL_KEY_HEADER,
} from '../../compiler/config/gateway-header-names.ts';
import { jsonErrorDetail } from '../../compiler/config/json-syntax-error.ts';
import { HEADER_PROVIDER_OPTIONS } from '../../compiler/config/providers.ts';
import { didYouMean } from '../../compiler/config/suggest.ts';

// Every x-gateway-* header name, declared once in compiler/config (the generated client sends them too).
export {
  API_KEY_HEADER, CACHE_FORCE_REFRESH_HEADER, CACHE_NAMESPACE_HEADER, CACHE_SIMILARITY_HEADER, CACHE_STATUS_HEADER, CONFIG_HEADER,
  CUSTOM_HOST_HEADER, FORWARD_HEADERS_HEADER, GATEWAY_HEADER_PREFIX, LAST_USED_OPTION_INDEX_HEADER, METADATA_HEADER, PROVIDER_HEADER,
  REQUEST_TIMEOUT_HEADER, RETRY_ATTEMPT_COUNT_HEADER, TRACE_ID_HEADER, VIRTUAL_KEY_HEADER,
} from '../../compiler/config/gateway-header-names.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';

/** Longest timeout a Node timer can hold; larger values would fire at once. */
export const MAX_REQUEST_TIMEOUT_MS = 2_147_483_647;
const MAX_TRACE_ID_LENGTH = 256;
/**
 * Bytes of x-gateway-metadata at most. It goes into every record of the request log, cache keys and
 * limit counters; unbounded, one key could make each request a record of the header limit (64 KB).
 * Plenty for tags (sixteen pairs of a 64-character key and a 160-character value fit).
 */
export const MAX_METADATA_BYTES = 4096;

/**
 * Characters of x-gateway-cache-namespace at most: it is part of every cache key of the request and,
 * with Redis, the name of a purge tag set; a name, as a trace id is, not a place for data.
 */
export const MAX_CACHE_NAMESPACE_LENGTH = 256;

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRINTABLE = /^[\x20-\x7e]+$/;
const DIGITS = /^[0-9]+$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export type Metadata = Readonly<Record<string, string>>;
export const NO_METADATA: Metadata = Object.freeze({});

function invalid(header: string, message: string): GatewayError {
  return new GatewayError('invalid_header', `${header} ${message}`, header);
}

/**
 * node:http reads header bytes as latin1. Clients that send UTF-8 JSON (curl, most SDKs) would see
 * their non-ASCII text mangled, so a value that is valid UTF-8 is read as UTF-8.
 */
export function headerText(value: string): string {
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) > 0x7f) {
      try {
        return utf8.decode(Buffer.from(value, 'latin1'));
      } catch {
        return value;
      }
    }
  }
  return value;
}

export function parseMetadata(value: string | undefined): Metadata {
  if (value === undefined) return NO_METADATA;
  // Node gives a header's bytes one character each: its length is its size in bytes.
  if (value.length > MAX_METADATA_BYTES) throw invalid(METADATA_HEADER, `must be at most ${MAX_METADATA_BYTES} bytes; it has ${value.length}.`);
  let parsed: unknown;
  const text = headerText(value);
  try {
    parsed = parseJson(text);
  } catch {
    throw invalid(METADATA_HEADER, `must be a JSON object whose values are strings; it is not valid JSON${jsonErrorDetail(text)}.`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalid(METADATA_HEADER, 'must be a JSON object whose values are strings.');
  }
  for (const key in parsed) {
    const item = (parsed as Record<string, unknown>)[key];
    if (typeof item !== 'string') {
      throw invalid(METADATA_HEADER, `must be a JSON object whose values are strings; ${JSON.stringify(key)} is ${item === null ? 'null' : Array.isArray(item) ? 'an array' : typeof item === 'object' ? 'an object' : `a ${typeof item}`}.`);
    }
  }
  return parsed as Metadata;
}

export function parseRequestTimeout(value: string | undefined): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  const ms = DIGITS.test(text) ? Number(text) : NaN;
  if (!(ms >= 1 && ms <= MAX_REQUEST_TIMEOUT_MS)) {
    throw invalid(REQUEST_TIMEOUT_HEADER, `must be a positive integer number of milliseconds, at most ${MAX_REQUEST_TIMEOUT_MS}.`);
  }
  return ms;
}

/** A comma-separated list or a JSON array of header names; returned lower-cased and de-duplicated. */
export function parseForwardHeaders(value: string | undefined): readonly string[] {
  if (value === undefined) return [];
  const text = value.trim();
  let names: unknown[];
  if (text.startsWith('[')) {
    try {
      names = JSON.parse(text) as unknown[];
    } catch {
      throw invalid(FORWARD_HEADERS_HEADER, `must be a comma-separated list or a JSON array of header names; the JSON array is not valid${jsonErrorDetail(text)}.`);
    }
    if (!Array.isArray(names)) throw invalid(FORWARD_HEADERS_HEADER, 'must be a JSON array of header names.');
  } else {
    names = text === '' ? [] : text.split(',').map((name) => name.trim());
  }
  const result: string[] = [];
  for (const name of names) {
    if (typeof name !== 'string' || !HEADER_NAME.test(name)) {
      throw invalid(FORWARD_HEADERS_HEADER, `must list valid header names; ${JSON.stringify(name)} is not one.`);
    }
    const never = neverForwardedBecause(name);
    if (never !== null) throw invalid(FORWARD_HEADERS_HEADER, `names ${JSON.stringify(name)}, which is never forwarded: ${never}.`);
    const lower = name.toLowerCase();
    if (!result.includes(lower)) result.push(lower);
  }
  return result;
}

export function parseCacheForceRefresh(value: string | undefined): boolean {
  if (value === undefined) return false;
  const text = value.trim().toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw invalid(CACHE_FORCE_REFRESH_HEADER, 'must be true or false.');
}

export function parseCacheNamespace(value: string | undefined): string | null {
  if (value === undefined) return null;
  const text = headerText(value).trim();
  if (text.length > MAX_CACHE_NAMESPACE_LENGTH) throw invalid(CACHE_NAMESPACE_HEADER, `must be at most ${MAX_CACHE_NAMESPACE_LENGTH} characters; it has ${text.length}.`);
  return text === '' ? null : text;
}

/** Every x-gateway-* header a client may send: the options above and the providers' header options (SPEC §5.2–§5.4). */
const REQUEST_HEADERS: readonly string[] = [
  API_KEY_HEADER, TRACE_ID_HEADER, CONFIG_HEADER, PROVIDER_HEADER, CUSTOM_HOST_HEADER, VIRTUAL_KEY_HEADER, METADATA_HEADER,
  REQUEST_TIMEOUT_HEADER, FORWARD_HEADERS_HEADER, CACHE_FORCE_REFRESH_HEADER, CACHE_NAMESPACE_HEADER,
  ...HEADER_PROVIDER_OPTIONS.keys(),
];
const KNOWN_REQUEST_HEADERS: ReadonlySet<string> = new Set(REQUEST_HEADERS);

/**
 * Refuses an x-gateway-* header the gateway does not read: a misspelt option (`x-gateway-cache-namespce`)
 * would otherwise be ignored, and the request served as if it had not been sent; and one of them
 * sent twice (SENT_TWICE). `rawHeaders` is node:http's flat name/value list (names as sent); only
 * names that start with "x" are looked at.
 */
export function refuseUnknownGatewayHeaders(rawHeaders: readonly string[]): void {
  let seen: string[] | null = null;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (!refuseUnknownGatewayHeader(name)) continue;
    const lower = name.toLowerCase();
    if (lower === FORWARD_HEADERS_HEADER) continue;
    if (seen === null) seen = [lower];
    else if (seen.includes(lower)) throw invalid(lower, SENT_TWICE);
    else seen.push(lower);
  }
}

/**
 * node:http joins a repeated header's values with ", ": a config id would become "a, b" (then
 * refused as an unknown config), a trace id "a, b", a namespace "a, b". Each gateway header holds
 * one value, so a repeat is refused by name. `x-gateway-forward-headers` is a list, for which
 * joining repeats is what HTTP defines (RFC 9110 §5.3).
 */
const SENT_TWICE = 'was sent more than once; send it once (its values would be joined with ", ").';

/**
 * The check of one header name (any case), for headers given as a map (simulate); true when the
 * name is one of the gateway's headers.
 */
export function refuseUnknownGatewayHeader(name: string): boolean {
  if (name.length <= GATEWAY_HEADER_PREFIX.length || (name.charCodeAt(0) | 0x20) !== 0x78) return false;
  if (KNOWN_REQUEST_HEADERS.has(name)) return true;
  const lower = name.toLowerCase();
  if (!lower.startsWith(GATEWAY_HEADER_PREFIX)) return false;
  if (KNOWN_REQUEST_HEADERS.has(lower)) return true;
  const hint = didYouMean(lower, REQUEST_HEADERS);
  throw invalid(lower, `is not a header of this gateway, which would leave it without effect${hint === undefined ? '.' : `; ${hint}`}`);
}

/** A client trace id is echoed in a response header and logged, so it must be short printable ASCII. */
export function isValidTraceId(value: string): boolean {
  return value.length <= MAX_TRACE_ID_LENGTH && PRINTABLE.test(value);
}
