// The fields of a virtual key: the provider options a config may carry (SPEC §2.1), which of them
// are secrets (sealed with the credential), and the checks the API applies to each.
import { PROVIDER_OPTIONS } from '../../../compiler/config/providers.ts';
import { headerTextProblem } from '../../../compiler/config/header-values.ts';
import { GatewayError } from '../../core/errors.ts';

/** Provider options by config field name → the JSON type the API accepts (schema/providers.json), and the custom host. */
export const OPTION_FIELDS: Readonly<Record<string, 'string' | 'array' | 'object'>> = {
  ...Object.fromEntries(PROVIDER_OPTIONS.map((option) => [option.key, option.type])),
  custom_host: 'string',
};

/** Sealed with the credential; only their names are ever shown. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set(['api_key', ...PROVIDER_OPTIONS.filter((option) => option.secret === true).map((option) => option.key)]);

export const SLUG = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function badField(pointer: string, message: string): GatewayError {
  return new GatewayError('invalid_request_body', message, pointer);
}

export function checkOption(name: string, value: unknown): void {
  const type = OPTION_FIELDS[name];
  const ok = type === 'string' ? typeof value === 'string' && value !== '' : type === 'array' ? Array.isArray(value) : typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!ok) throw badField(`/${name}`, `${name} must be ${type === 'string' ? 'a non-empty string' : type === 'array' ? 'an array' : 'an object'}.`);
  if (type === 'string') checkSentText(name, value as string);
}

/** A value the gateway sends in a header (the credential, a string option): only what a header can carry. */
export function checkSentText(name: string, value: string): void {
  const problem = headerTextProblem(value);
  if (problem !== null) throw badField(`/${name}`, `${name} holds ${problem}, which no HTTP header can carry; the gateway sends it to the provider.`);
}

/** A recognisable fragment of a key, never enough to use it: `sk-…abcd`. */
export function keyHint(key: string | null): string | null {
  if (key === null || key.length < 12) return null;
  return `${key.slice(0, 3)}…${key.slice(-4)}`;
}
