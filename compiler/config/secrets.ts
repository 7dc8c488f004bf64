// Secrets in configs (configs live in git): any string may be or contain `${NAME}`, a reference to an
// environment variable of the process that serves the config. File configs resolve their references
// when `serve` loads them; `gateway compile` keeps them as written (its artifacts never hold a value);
// configs sent over the API or inline may not use them at all: a client must not be able to make the
// gateway send its own environment (a database URL, the master key) to a host of the client's
// choosing. Credentials written literally are shown redacted wherever a config is echoed.
import configSchema from '../../schema/config.json' with { type: 'json' };
import { PROVIDER_OPTIONS } from './providers.ts';
import type { ConfigError } from './errors.ts';
import { escapePointerToken } from './json-locate.ts';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
export const HAS_REFERENCE = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/;

/**
 * Config keys that hold credentials: every schema property named like one (api_key, *_secret_*,
 * *_token, a service account), and every provider option the manifest marks secret (an access key ID).
 */
export const CREDENTIAL_KEYS: ReadonlySet<string> = new Set([
  ...schemaPropertyNames(configSchema).filter((name) => /(^|_)(api_key|secret|token|password|service_account)/.test(name)),
  ...PROVIDER_OPTIONS.filter((option) => option.secret === true).map((option) => option.key),
]);

/** How a check treats `${NAME}`: resolve it from `env`, keep it as written, or refuse it. */
export type SecretReferences = { env: Readonly<Record<string, string | undefined>> } | 'keep' | 'refuse';

export interface SecretReference {
  pointer: string;
  name: string;
}

/** Every `${NAME}` in the config's strings, with the pointer of the string. */
export function secretReferences(value: unknown): SecretReference[] {
  const found: SecretReference[] = [];
  walkStrings(value, '', (text, pointer) => {
    for (const match of text.matchAll(REFERENCE)) found.push({ pointer, name: match[1] });
  });
  return found;
}

/** The config with every reference replaced by its variable's value; a variable that is not set is an error at the string. */
export function resolveSecrets(value: unknown, env: Readonly<Record<string, string | undefined>>): { value: unknown; errors: ConfigError[] } {
  const errors: ConfigError[] = [];
  const resolve = (node: unknown, pointer: string): unknown => {
    if (typeof node === 'string') {
      if (!HAS_REFERENCE.test(node)) return node;
      return node.replace(REFERENCE, (whole, name: string) => {
        const set = env[name];
        if (set !== undefined && set !== '') return set;
        errors.push({ code: 'CFG_SECRET_NOT_SET', pointer, message: `The environment variable ${name} that this string names is not set.`, hint: `set ${name} in the environment of gateway serve` });
        return whole;
      });
    }
    if (Array.isArray(node)) return node.map((item, i) => resolve(item, `${pointer}/${i}`));
    if (node !== null && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, resolve(item, `${pointer}/${escapePointerToken(key)}`)]));
    return node;
  };
  return { value: resolve(value, ''), errors };
}

/** CFG_SECRET_REFERENCE_NOT_ALLOWED for each reference of a config that did not come from a file. */
export function refusedReferences(value: unknown): ConfigError[] {
  return secretReferences(value).map(({ pointer, name }) => ({
    code: 'CFG_SECRET_REFERENCE_NOT_ALLOWED',
    pointer,
    message: `\${${name}} names an environment variable; only config files loaded by serve may, so a client can never make the gateway send its environment anywhere.`,
    hint: 'put the value itself (it is shown redacted), use a virtual key, or save the config as a file in the --configs folder',
  }));
}

/** Credentials written literally (not as `${NAME}`): pointers, for `gateway compile`'s warning. */
export function literalCredentials(value: unknown): string[] {
  const found: string[] = [];
  walkStrings(value, '', (text, pointer, key) => {
    if (key !== null && CREDENTIAL_KEYS.has(key) && !HAS_REFERENCE.test(text) && text !== '') found.push(pointer);
  });
  return found;
}

/** The config (or plan) with every credential string redacted (`sk-…abcd`); references stay as written. */
export function redactCredentials<T>(value: T, keys: ReadonlySet<string> = CREDENTIAL_KEYS): T {
  const redact = (node: unknown, key: string | null): unknown => {
    if (typeof node === 'string') return key !== null && keys.has(key) && !HAS_REFERENCE.test(node) ? redactCredential(node) : node;
    if (Array.isArray(node)) return node.map((item) => redact(item, null));
    if (node !== null && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, item]) => [k, redact(item, k)]));
    return node;
  };
  return redact(value, null) as T;
}

/** `sk-example-0007` → `sk-…0007`: enough to tell two keys apart, never enough to use one. */
export function redactCredential(secret: string): string {
  if (secret.length < 12) return '…';
  const prefix = /^[A-Za-z]{1,5}[-_]/.exec(secret)?.[0] ?? '';
  return `${prefix}…${secret.slice(-4)}`;
}

function walkStrings(value: unknown, pointer: string, visit: (text: string, pointer: string, key: string | null) => void, key: string | null = null): void {
  if (typeof value === 'string') visit(value, pointer, key);
  else if (Array.isArray(value)) value.forEach((item, i) => walkStrings(item, `${pointer}/${i}`, visit, null));
  else if (value !== null && typeof value === 'object') for (const [k, item] of Object.entries(value)) walkStrings(item, `${pointer}/${escapePointerToken(k)}`, visit, k);
}

function schemaPropertyNames(schema: unknown): string[] {
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === 'object') {
      const properties = (node as { properties?: unknown }).properties;
      if (properties !== null && typeof properties === 'object') for (const name of Object.keys(properties)) names.add(name);
      Object.values(node).forEach(walk);
    }
  };
  walk(schema);
  return [...names];
}
