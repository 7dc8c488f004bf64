// JSON.parse for text from outside the process, guarded against a V8 bug (nodejs/node#63785, V8
// issue 521080746; Node 24, and 26 too): an object key written with an escape (`"\n"`, `"\""`,
// `"caf\u00e9"`) can come back as the key an earlier parse made at the same place holding a literal
// backslash (`"\\"`, `"caf\\"`), because V8 follows that key's map transition on a prefix of the raw
// text. Any client can leave such a key behind, so it would rename keys in other clients' bodies
// (a tool schema's property, a metadata key), and two different bodies would share a cache key.
// Texts that cannot hold an escaped key (nearly all) keep the native parse alone; the others are
// read again here, each key decoded as a string value (which the bug does not touch).

/** A key (after `{` or `,`) with a backslash before its closing quote; a value after `,` can match too (only a needless second read). */
const MAY_HAVE_ESCAPED_KEY = /[{,]\s*"[^"\\]*\\/;

/** JSON.parse, with keys written with escapes read correctly; throws what JSON.parse throws. */
export function parseJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (!text.includes('\\') || !MAY_HAVE_ESCAPED_KEY.test(text)) return value;
  return readValid(text);
}

/** One JSON token: a string, a number, a literal or a punctuator, after any whitespace. */
const TOKEN = /\s*(?:("[^"\\]*(?:\\.[^"\\]*)*")|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(true|false|null)|([{}[\]:,]))/y;

interface Open {
  container: Record<string, unknown> | unknown[];
  /** The key whose value comes next (objects); null before it is read. */
  key: string | null;
}

/**
 * Reads a text JSON.parse already accepted, without recursion (any depth). Keys and strings are
 * decoded by JSON.parse as string values; a `__proto__` key is an own property, as JSON.parse makes it.
 */
function readValid(text: string): unknown {
  const stack: Open[] = [];
  let result: unknown;
  let done = false;
  const place = (value: unknown): void => {
    const top = stack.at(-1);
    if (top === undefined) {
      result = value;
      done = true;
    } else if (Array.isArray(top.container)) {
      top.container.push(value);
    } else {
      Object.defineProperty(top.container, top.key!, { value, writable: true, enumerable: true, configurable: true });
      top.key = null;
    }
  };
  TOKEN.lastIndex = 0;
  while (!done) {
    const match = TOKEN.exec(text);
    if (match === null) throw new SyntaxError('JSON text ended early');
    const [, string, number, literal, punctuator] = match;
    if (string !== undefined) {
      const decoded = string.includes('\\') ? (JSON.parse(string) as string) : string.slice(1, -1);
      const top = stack.at(-1);
      // A string right inside an object, where no key is pending, is the next key.
      if (top !== undefined && !Array.isArray(top.container) && top.key === null) top.key = decoded;
      else place(decoded);
    } else if (number !== undefined) {
      place(Number(number));
    } else if (literal !== undefined) {
      place(literal === 'true' ? true : literal === 'false' ? false : null);
    } else if (punctuator === '{' || punctuator === '[') {
      stack.push({ container: punctuator === '{' ? {} : [], key: null });
    } else if (punctuator === '}' || punctuator === ']') {
      place(stack.pop()!.container);
    }
    // `:` and `,` carry nothing the stack does not already know.
  }
  return result;
}
