// The §5.4 cloud headers (and the vendor's organization and project) as provider options, under
// the config field names, so a request that names its provider in headers reads like a config.
import type { IncomingHttpHeaders } from 'node:http';
import { unreadOptions } from '../../compiler/config/unread-options.ts';
import { HEADER_PROVIDER_OPTIONS } from '../../compiler/config/providers.ts';
import { GatewayError } from '../core/errors.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';

const NONE: Readonly<Record<string, unknown>> = Object.freeze({});

/** Option key → the header that sets it (`cloudb_region` → `x-gateway-cloudb-region`). */
const OPTION_HEADER: ReadonlyMap<string, { header: string; family: string }> = new Map(
  [...HEADER_PROVIDER_OPTIONS].map(([header, option]) => [option.key, { header, family: option.family }]),
);

/**
 * What one target of a route reads of the provider-option headers: its provider's family, and the
 * options it sets itself (its config's, its virtual key's or slug's), which win over a header's.
 */
export interface OptionReader {
  family: string;
  own: Readonly<Record<string, unknown>>;
  /** The target calls a custom host (its own, its key's, or the request's): cloud A then reads no resource name. */
  customHost: boolean;
}

/**
 * `readers`: the route's targets, or null when some target's provider is known only per request (the
 * transport checks those then, with refuseUnreadOptionHeaders). A header no target reads would have
 * no effect: refused.
 */
export function headerOptions(headers: IncomingHttpHeaders, readers: readonly OptionReader[] | null = null): Readonly<Record<string, unknown>> {
  let options: Record<string, unknown> | null = null;
  for (const [name, option] of HEADER_PROVIDER_OPTIONS) {
    const value = headers[name];
    if (typeof value !== 'string' || value === '') continue;
    options ??= {};
    // The service account travels as JSON text in its header; a config holds it as an object.
    options[option.key] = option.type === 'object' ? parseJsonOrText(value) : value;
  }
  if (options === null) return NONE;
  if (readers !== null) refuseUnreadOptionHeaders(options, readers);
  return options;
}

/**
 * 400 for the first of the header options (headerOptions' result) that no target reads: none is of the
 * family that reads it, every one that is sets the option itself, or the family's rules leave it unread
 * beside the target's other options (compiler/config/unread-options.ts: cloud A's kinds of endpoint).
 */
export function refuseUnreadOptionHeaders(options: Readonly<Record<string, unknown>>, readers: readonly OptionReader[]): void {
  for (const key in options) {
    const set = OPTION_HEADER.get(key);
    if (set === undefined) continue;
    const ofFamily = readers.filter((reader) => reader.family === set.family);
    if (ofFamily.length === 0) {
      const families = [...new Set(readers.map((reader) => reader.family))].join(', ');
      throw new GatewayError('invalid_header', `${set.header} is read by ${set.family} providers, and no target of this route is one (${families}): it would have no effect.`, set.header);
    }
    if (ofFamily.every((reader) => reader.own[key] !== undefined)) {
      throw new GatewayError('invalid_header', `${set.header} would have no effect: every ${set.family} target of this route sets ${key} itself (in its config or its virtual key), and that value wins over the header's.`, set.header);
    }
    const why = ofFamily.map((reader) => unreadOptions(set.family, { ...options, ...reader.own }, reader.customHost).get(key));
    if (why.every((reason) => reason !== undefined)) {
      throw new GatewayError('invalid_header', `${set.header} would have no effect: no target of this route reads ${key}: ${why[0]}.`, set.header);
    }
  }
}

function parseJsonOrText(value: string): unknown {
  try {
    return parseJson(value);
  } catch {
    return value;
  }
}
