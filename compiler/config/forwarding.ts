// Which client headers may never be forwarded to a provider, whatever a config or
// x-gateway-forward-headers asks, and why: every x-gateway-* header (the gateway key, its options,
// and cloud credentials sent as headers, such as x-gateway-cloudc-secret-access-key), and the
// headers that describe the client's connection to the gateway rather than the message (hop-by-hop,
// `host`, `content-length`, `expect`: the upstream layer drops them and sets its own), and
// `accept-encoding`: the gateway reads providers' answers (usage, cache, guardrails, translation), so
// it always asks for them uncompressed. Used by the
// compiler (a config naming one is refused), the header parser (400), the transport (never sent)
// and the upstream layer (runtime/upstream/hop-by-hop.ts).
/** The prefix of every header the gateway itself reads or writes. */
export const GATEWAY_HEADER_PREFIX = 'x-gateway-';

/** Headers that describe one connection, not the message (RFC 9110 §7.6.1): they cross a proxy in neither direction. `proxy-connection` is the pre-standard alias clients still send. */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Dropped from requests only: undici computes `host` and `content-length` from the origin and the
 * body it actually sends, and it rejects `expect` (it does not implement 100-continue on HTTP/1.1).
 */
export const REQUEST_ONLY_DROPPED: ReadonlySet<string> = new Set(['host', 'content-length', 'expect']);

/**
 * What every upstream request says it accepts, whatever the client accepts: answers the gateway reads
 * must come as sent, and the gateway compresses nothing itself, so what the client gets is identity too.
 */
export const UPSTREAM_ACCEPT_ENCODING = 'identity';

/** Why `name` is never sent to a provider (a sentence to follow "… is never forwarded: "); null when it may be. */
export function neverForwardedBecause(name: string): string | null {
  const lower = name.toLowerCase();
  if (lower.startsWith(GATEWAY_HEADER_PREFIX)) return 'it is one of the gateway\'s own headers, which are never sent to a provider';
  if (HOP_BY_HOP_HEADERS.has(lower) || REQUEST_ONLY_DROPPED.has(lower)) return 'it describes the connection to the gateway, not the request; the gateway sets its own on the provider\'s connection';
  if (lower === 'accept-encoding') return `the gateway reads providers' answers (usage, cache, guardrails) and always asks for them uncompressed (accept-encoding: ${UPSTREAM_ACCEPT_ENCODING})`;
  return null;
}

export function isNeverForwarded(name: string): boolean {
  return neverForwardedBecause(name) !== null;
}
