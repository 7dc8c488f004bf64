import { parseJson } from '../core/json-parse.ts';
// What a logged body may show (GATEWAY_LOG_BODIES=on): credentials replaced, then capped. A JSON body
// has the values of credential-named keys replaced at any depth; any text has bearer tokens and
// secret-key-shaped strings replaced. Bodies are data the client sent or the provider answered, so
// the walk is bounded in depth like every walk over client JSON.
const CREDENTIAL_KEY = /^(api[-_]?key|x-api-key|authorization|password|passwd|secret|client[-_]?secret|(access|refresh|id|session)[-_]?token|private[-_]?key|(secret[-_])?access[-_]?key([-_]id)?|service[-_]?account([-_]json)?|credentials?)$/i;
const SECRET_TEXT = /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}|\b(sk|pk|rk|gw)[-_][A-Za-z0-9_-]{8,}|AKIA[0-9A-Z]{16}/g;
const REDACTED = '[redacted]';
const MAX_DEPTH = 64;

export function redactBody(body: Buffer | string, maxBytes: number): string {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  let shown: string;
  try {
    shown = JSON.stringify(redactValue(parseJson(text), 0));
  } catch {
    shown = redactText(text);
  }
  if (Buffer.byteLength(shown) <= maxBytes) return shown;
  return `${Buffer.from(shown).subarray(0, maxBytes).toString('utf8')}…[truncated]`;
}

export function redactText(text: string): string {
  return text.replace(SECRET_TEXT, (match, bearer: string | undefined) => (bearer !== undefined ? `${bearer}${REDACTED}` : REDACTED));
}

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = CREDENTIAL_KEY.test(key) ? REDACTED : redactValue(item, depth + 1);
  return out;
}
