// CFG_UNKNOWN_PROVIDER: a `provider` that names no provider of schema/providers.json (case does not
// matter) fails the compile with "did you mean", instead of compiling "ok" and failing every request.
// A name starting with `@` is a provider slug, stored in the control plane and resolved per request.
import { type ConfigError, MAX_TARGET_DEPTH } from './errors.ts';
import { PROVIDER_NAMES } from './providers.ts';
import { isPlainObject } from './query.ts';
import { didYouMean } from './suggest.ts';

const KNOWN: ReadonlySet<string> = new Set(PROVIDER_NAMES);

export function checkProviderNames(config: unknown): ConfigError[] {
  const errors: ConfigError[] = [];
  const walk = (node: unknown, at: string, depth: number): void => {
    if (!isPlainObject(node) || depth > MAX_TARGET_DEPTH) return;
    const provider = node.provider;
    if (typeof provider === 'string' && provider !== '' && !provider.startsWith('@') && !KNOWN.has(provider.toLowerCase())) {
      errors.push({
        code: 'CFG_UNKNOWN_PROVIDER',
        pointer: `${at}/provider`,
        message: `No provider is named ${JSON.stringify(provider)}.`,
        hint: didYouMean(provider, PROVIDER_NAMES) ?? `known providers: ${PROVIDER_NAMES.join(', ')}; a stored provider slug starts with @`,
      });
    }
    if (Array.isArray(node.targets)) node.targets.forEach((child, i) => walk(child, `${at}/targets/${i}`, depth + 1));
  };
  walk(config, '', 0);
  return errors;
}
