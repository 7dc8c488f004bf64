// Headers that describe one connection, not the message (RFC 9110 §7.6.1): they must not cross the
// proxy in either direction. Names listed in a `Connection` header are hop-by-hop too.

import { HOP_BY_HOP_HEADERS, REQUEST_ONLY_DROPPED, UPSTREAM_ACCEPT_ENCODING } from '../../compiler/config/forwarding.ts';

// The fixed sets are defined with the rule that refuses forwarding them (compiler/config/forwarding.ts).
export { HOP_BY_HOP_HEADERS, REQUEST_ONLY_DROPPED };

function addConnectionTokens(value: string | string[] | undefined, into: Set<string>): void {
  if (value === undefined) return;
  const values = typeof value === 'string' ? [value] : value;
  for (const v of values) {
    for (const token of v.split(',')) {
      const name = token.trim().toLowerCase();
      if (name !== '') into.add(name);
    }
  }
}

/** A header literally named `__proto__` must stay a header, not replace the object's prototype. */
function setOwn<T>(target: Record<string, T>, name: string, value: T): void {
  if (name === '__proto__') {
    Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[name] = value;
  }
}

const NONE_NAMED: ReadonlySet<string> = new Set();

/** Names the `connection` header of these (lower-cased) headers declares hop-by-hop. */
function connectionNominated(headers: Record<string, string | string[] | undefined>): ReadonlySet<string> {
  const connection = headers['connection'];
  // Most messages name nothing beyond the fixed set: no Set per message for them.
  if (connection === undefined || connection === 'keep-alive' || connection === 'close') return NONE_NAMED;
  const named = new Set<string>();
  addConnectionTokens(connection, named);
  return named;
}

/**
 * Headers to send upstream: hop-by-hop, host, content-length and expect removed, and an uncompressed
 * answer asked for (forwarding.ts says why). Names must be lower-case.
 */
export function requestHeadersForUpstream(headers: Record<string, string>): Record<string, string> {
  const named = connectionNominated(headers);
  const out: Record<string, string> = {};
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    if (HOP_BY_HOP_HEADERS.has(name) || REQUEST_ONLY_DROPPED.has(name) || named.has(name)) continue;
    setOwn(out, name, headers[name]);
  }
  out['accept-encoding'] = UPSTREAM_ACCEPT_ENCODING;
  return out;
}

/** Provider response headers the client may see: hop-by-hop removed, everything else untouched. */
export function responseHeadersForClient(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const named = connectionNominated(headers);
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP_HEADERS.has(name) || named.has(name)) continue;
    setOwn(out, name, value);
  }
  return out;
}
