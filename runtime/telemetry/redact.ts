// What a logged body may show (GATEWAY_LOG_BODIES=on): credentials replaced, then capped. A JSON body
// has the values of credential-named keys replaced at any depth; any text has bearer tokens and
// secret-key-shaped strings replaced. Bodies are data the client sent or the provider answered, so
// the walk is bounded in depth like every walk over client JSON.
//
// The work is bounded by the cap, not by the body. A body within a window a few times the cap is
// parsed, redacted and serialised whole; of a longer one (a 25 MB upload, a 10 MB prompt) only the
// window is read, and JSON is redacted as it is scanned, giving the start of what the whole-body
// redaction would. Before, one 25 MB upload held the event loop for a second.
import { parseJson } from '../../compiler/config/json-parse.ts';

const CREDENTIAL_KEY = /^(api[-_]?key|x-api-key|authorization|password|passwd|secret|client[-_]?secret|(access|refresh|id|session)[-_]?token|private[-_]?key|(secret[-_])?access[-_]?key([-_]id)?|service[-_]?account([-_]json)?|credentials?)$/i;
const SECRET_TEXT = /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}|\b(sk|pk|rk|gw)[-_][A-Za-z0-9_-]{8,}|AKIA[0-9A-Z]{16}/g;
/**
 * The start of what SECRET_TEXT would match, at the very end of a text cut short: too short to match
 * there, the rest of it lies past the cut, so it may be a secret's first characters.
 */
const SECRET_START_AT_END = /(Bearer\s+)[A-Za-z0-9._~+/=-]+$|\b(?:sk|pk|rk|gw)[-_][A-Za-z0-9_-]*$|AKIA[0-9A-Z]*$/;
const REDACTED = '[redacted]';
const TRUNCATED = '…[truncated]';
const MAX_DEPTH = 64;
/**
 * Text read past the cap before it is cut: a secret that starts before the cut is matched whole (its
 * pattern needs only its first few dozen characters), so no part of it survives the cut.
 */
export const REDACT_MARGIN = 256;
/** How much of a body is read, in multiples of the cap (plus a fixed part): room for JSON's whitespace and redacted values. */
const WINDOW_FACTOR = 4;
const WINDOW_EXTRA = 64 * 1024;
const SPACE = /[ \t\n\r]*/y;
const LITERAL = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null/y;

/** `partial`: `body` is only the start of a longer one (a stream kept up to a margin past the cap). */
export function redactBody(body: Buffer | string, maxBytes: number, partial = false): string {
  const window = maxBytes * WINDOW_FACTOR + WINDOW_EXTRA;
  const whole = body.length <= window;
  const text = typeof body === 'string' ? (whole ? body : body.slice(0, window)) : body.subarray(0, window).toString('utf8');
  let shown: string;
  const cut = !whole || partial;
  if (whole) {
    // Within the window, the native parser is the fastest way to the same answer.
    try {
      shown = JSON.stringify(redactValue(parseJson(text), 0));
    } catch {
      // A stream's start (`partial`) may end inside a secret, the rest of which never came.
      shown = partial ? redactSecretStart(redactText(text)) : redactText(text);
    }
  } else {
    const json = redactJson(text, maxBytes);
    shown = json ?? redactSecretStart(redactText(text.slice(0, maxBytes + REDACT_MARGIN)));
  }
  if (!cut && Buffer.byteLength(shown) <= maxBytes) return shown;
  return `${utf8Start(Buffer.from(shown), maxBytes)}${TRUNCATED}`;
}

/** The first `maxBytes` bytes of `bytes` as text, without the character the cut would split. */
function utf8Start(bytes: Buffer, maxBytes: number): string {
  let end = Math.min(maxBytes, bytes.length);
  // A continuation byte (10xxxxxx) at the cut: the character it belongs to starts before it.
  while (end > 0 && end < bytes.length && (bytes[end] & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}

/** `text`, cut short, with a secret's possible start at its end replaced as a secret is (redactText does the rest: a whole one). */
function redactSecretStart(text: string): string {
  return text.replace(SECRET_START_AT_END, redacted);
}

export function redactText(text: string): string {
  return text.replace(SECRET_TEXT, redacted);
}

/** A secret's replacement: a bearer token keeps its `Bearer ` prefix. */
function redacted(_match: string, bearer: string | undefined): string {
  return bearer !== undefined ? `${bearer}${REDACTED}` : REDACTED;
}

/** Thrown by the scan: the output passed the cap, or the window ended inside the body. */
const STOP = Symbol('stop');
/** Thrown by the scan: the text is not JSON, and is redacted as text instead. */
const NOT_JSON = Symbol('not JSON');

/**
 * The compact, redacted JSON of `text`, the start of a longer body, up to a little past `maxBytes`
 * characters: what redactValue would give for the whole body, as far as it goes. Null when the text
 * is not JSON (as far as it was read).
 */
function redactJson(text: string, maxBytes: number): string | null {
  const out: string[] = [];
  let length = 0;
  let at = 0;
  const limit = maxBytes + REDACT_MARGIN;

  const emit = (piece: string): void => {
    out.push(piece);
    length += piece.length;
    if (length > limit) throw STOP;
  };
  const space = (): void => {
    SPACE.lastIndex = at;
    SPACE.test(text);
    at = SPACE.lastIndex;
    // The window ended: the body goes on past it.
    if (at >= text.length) throw STOP;
  };
  const expect = (char: string): void => {
    space();
    if (text[at] !== char) throw NOT_JSON;
    at += 1;
  };
  /** The end of the string token opening at `at` (the index of its closing quote), or -1 past the window. */
  const stringEnd = (): number => {
    let from = at + 1;
    for (;;) {
      const quote = text.indexOf('"', from);
      if (quote === -1) return -1;
      let slashes = 0;
      while (text[quote - 1 - slashes] === '\\') slashes += 1;
      if (slashes % 2 === 0) return quote;
      from = quote + 1;
    }
  };
  /** The string token at `at`, decoded; a long one only as far as the output can still take. */
  const readString = (): { value: string; whole: boolean } => {
    if (text[at] !== '"') throw NOT_JSON;
    const end = stringEnd();
    const room = limit - length + REDACT_MARGIN;
    if (end !== -1 && end - at - 1 <= room) {
      const value = decode(text.slice(at + 1, end));
      at = end + 1;
      return { value, whole: true };
    }
    // Only the start is shown: decoded without a half escape at its end.
    const raw = text.slice(at + 1, at + 1 + Math.min(room, end === -1 ? text.length : end - at - 1));
    const value = decode(withoutHalfEscape(raw));
    // Cut by the window's end, which can come before the cap (a long credential's value read and
    // dropped): a secret begun there has its rest past the window, too little of it to match.
    return { value: end === -1 ? redactSecretStart(value) : value, whole: false };
  };
  /** Skips the value at `at` (a credential's, or one too deep), however long. */
  const skip = (): void => {
    space();
    let depth = 0;
    for (;;) {
      if (at >= text.length) throw STOP;
      const char = text[at];
      if (char === '"') {
        const end = stringEnd();
        if (end === -1) throw STOP;
        at = end + 1;
      } else if (char === '{' || char === '[') {
        depth += 1;
        at += 1;
      } else if (char === '}' || char === ']') {
        if (depth === 0) return;
        depth -= 1;
        at += 1;
      } else if (char === ',' && depth === 0) return;
      else at += 1;
      if (depth === 0 && (char === '"' || char === '}' || char === ']')) return;
    }
  };
  const value = (depth: number): void => {
    space();
    const char = text[at];
    if (char === '{' || char === '[') {
      // Said before the value is skipped: a skip that runs out of the window still shows it.
      if (depth >= MAX_DEPTH) {
        emit('"[too deep]"');
        skip();
        return;
      }
      const close = char === '{' ? '}' : ']';
      emit(char);
      at += 1;
      space();
      if (text[at] === close) {
        at += 1;
        emit(close);
        return;
      }
      for (;;) {
        if (close === '}') {
          space();
          const key = readString();
          if (!key.whole) {
            emit(JSON.stringify(key.value).slice(0, -1));
            throw STOP;
          }
          emit(`${JSON.stringify(key.value)}:`);
          expect(':');
          if (CREDENTIAL_KEY.test(key.value)) {
            emit(JSON.stringify(REDACTED));
            skip();
          } else value(depth + 1);
        } else value(depth + 1);
        space();
        const next = text[at];
        at += 1;
        if (next === close) {
          emit(close);
          return;
        }
        if (next !== ',') throw NOT_JSON;
        emit(',');
      }
    }
    if (char === '"') {
      const read = readString();
      const quoted = JSON.stringify(redactText(read.value));
      // The start of a longer string stays open: no closing quote the body did not have there.
      emit(read.whole ? quoted : quoted.slice(0, -1));
      if (!read.whole) throw STOP;
      return;
    }
    LITERAL.lastIndex = at;
    const literal = LITERAL.exec(text);
    if (literal === null) throw NOT_JSON;
    at = LITERAL.lastIndex;
    // A number that runs to the window's end may go on past it.
    if (at >= text.length) throw STOP;
    emit(literal[0]);
  };

  try {
    value(0);
    SPACE.lastIndex = at;
    SPACE.test(text);
    // Something after the value (as in binary that starts like a number): not JSON.
    if (SPACE.lastIndex < text.length) return null;
    return out.join('');
  } catch (error) {
    if (error === STOP) return out.join('');
    if (error === NOT_JSON) return null;
    throw error;
  }
}

/** A JSON string's contents decoded; text JSON would refuse (a raw control character, a bad escape) is not JSON. */
function decode(raw: string): string {
  if (!raw.includes('\\') && !/[\u0000-\u001f]/.test(raw)) return raw;
  try {
    return parseJson(`"${raw}"`) as string;
  } catch {
    throw NOT_JSON;
  }
}

/** The start of a string's contents, without the escape its cut left unfinished (`\`, `\u00`). */
function withoutHalfEscape(raw: string): string {
  const unicode = /\\u[0-9a-fA-F]{0,3}$/.exec(raw);
  const end = unicode === null ? raw.length : unicode.index;
  // The backslashes before `end`: an odd run ends in one that starts an escape.
  let slashes = 0;
  while (raw[end - 1 - slashes] === '\\') slashes += 1;
  if (unicode !== null) return slashes % 2 === 0 ? raw.slice(0, end) : raw;
  return slashes % 2 === 1 ? raw.slice(0, -1) : raw;
}

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  // No prototype: a `__proto__` key is a member like any other, logged, not a prototype set.
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, item] of Object.entries(value)) out[key] = CREDENTIAL_KEY.test(key) ? REDACTED : redactValue(item, depth + 1);
  return out;
}
