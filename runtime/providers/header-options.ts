// The §5.4 cloud headers (and the vendor's organization and project) as provider options, under
// the config field names, so a request that names its provider in headers reads like a config.
import type { IncomingHttpHeaders } from 'node:http';
import { HEADER_PROVIDER_OPTIONS } from '../../compiler/config/providers.ts';
import { GatewayError } from '../core/errors.ts';

const NONE: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * `families`: the provider families of the route's targets, or null when some target's provider is
 * known only per request. A header only another family reads would have no effect: refused.
 */
export function headerOptions(headers: IncomingHttpHeaders, families: ReadonlySet<string> | null = null): Readonly<Record<string, unknown>> {
  let options: Record<string, unknown> | null = null;
  for (const [name, option] of HEADER_PROVIDER_OPTIONS) {
    const value = headers[name];
    if (typeof value !== 'string' || value === '') continue;
    if (families !== null && !families.has(option.family)) {
      throw new GatewayError('invalid_header', `${name} is read by ${option.family} providers, and no target of this route is one (${[...families].join(', ')}): it would have no effect.`, name);
    }
    options ??= {};
    // The service account travels as JSON text in its header; a config holds it as an object.
    options[option.key] = option.type === 'object' ? parseJsonOrText(value) : value;
  }
  return options ?? NONE;
}

function parseJsonOrText(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
