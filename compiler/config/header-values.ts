// Text the gateway sends in a provider request's headers or URL: a credential (`api_key`, an access
// key, a session token) and every provider option given as text (an organisation, a region). An HTTP
// header carries tab, printable ASCII and Latin-1 at most. Anything else, most often a line break (a
// key read from a file keeps the newline it ends with), made every request through the target a 500:
// the HTTP client refuses such a header. Refused where the value is given instead: in a config
// (compile, and serve's start once `${NAME}` is filled in) and in a virtual key.
import { type ConfigError, MAX_TARGET_DEPTH } from './errors.ts';
import { isPlainObject } from './query.ts';
import { PROVIDER_OPTIONS } from './providers.ts';

/** The config keys whose text is sent: the credential and the provider options that are strings. */
const SENT_TEXT_KEYS: ReadonlySet<string> = new Set(['api_key', ...PROVIDER_OPTIONS.filter((option) => option.type === 'string').map((option) => option.key)]);

/** What in `text` no header can carry, in words; null when a header can carry all of it. */
export function headerTextProblem(text: string): string | null {
  const bad = /[^\t\x20-\x7e\x80-\xff]/.exec(text);
  if (bad === null) return null;
  const code = bad[0].charCodeAt(0);
  const what = code === 0x0a || code === 0x0d ? 'a line break' : code < 0x20 || code === 0x7f ? 'a control character' : 'a character outside Latin-1';
  return bad.index === text.length - 1 && (code === 0x0a || code === 0x0d) ? `${what} at its end` : what;
}

/** Each config node (the root and every target, as deep as targets may nest): its sent text, checked. */
export function checkHeaderValues(config: unknown): ConfigError[] {
  const errors: ConfigError[] = [];
  const walk = (node: unknown, at: string, depth: number): void => {
    if (!isPlainObject(node) || depth > MAX_TARGET_DEPTH) return;
    for (const [key, value] of Object.entries(node)) {
      if (!SENT_TEXT_KEYS.has(key) || typeof value !== 'string') continue;
      const problem = headerTextProblem(value);
      if (problem === null) continue;
      const pointer = `${at}/${key}`;
      // The value is never echoed: it is most often a credential.
      errors.push({
        code: 'CFG_INVALID_FORMAT',
        pointer,
        message: `"${key}" (${pointer}) holds ${problem}, which no HTTP header can carry; the gateway sends this value to the provider.`,
        hint: problem.endsWith('at its end') ? 'a value read from a file often keeps its last newline: remove it' : 'use the value the provider gave, in printable ASCII',
      });
    }
    if (Array.isArray(node.targets)) node.targets.forEach((child, i) => walk(child, `${at}/targets/${i}`, depth + 1));
  };
  walk(config, '', 0);
  return errors;
}
