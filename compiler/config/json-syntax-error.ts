// Where a text that JSON.parse refused goes wrong, and why, in words of our own. V8's messages are not
// enough for a located error: "Unexpected token" carries no position (the error showed at the end of
// the file), and it quotes the text around the token, which in a config is often a credential (an
// unquoted `sk-…` key ended up in CI logs). This scanner says where the first error is and names at
// most the one character found there. It runs only on text JSON.parse refused; it keeps its own stack
// of open brackets, so no nesting depth can overflow the call stack.

export interface JsonSyntaxError {
  /** UTF-16 offset of the first error (the text's length when it ended too soon). */
  offset: number;
  message: string;
}

/** What the scan expects next (plain constants: the runtime strips types, it compiles no enums). */
const Expect = {
  /** A value (the document, an array element, a property value). */
  Value: 0,
  /** The first element of an array, or its `]`. */
  FirstElement: 1,
  /** The first property of an object, or its `}`. */
  FirstProperty: 2,
  /** A property name after a comma. */
  PropertyName: 3,
  /** What follows a value: a comma or the closing bracket of the innermost container, or the end. */
  AfterValue: 4,
} as const;
type Expectation = (typeof Expect)[keyof typeof Expect];

/** The first syntax error of `text`; null when it is valid JSON. */
export function jsonSyntaxError(text: string): JsonSyntaxError | null {
  const open: number[] = [];
  let i = skipSpace(text, 0);
  let expect: Expectation = Expect.Value;
  for (;;) {
    if (expect === Expect.AfterValue) {
      i = skipSpace(text, i);
      const container = open[open.length - 1];
      if (container === undefined) return i === text.length ? null : { offset: i, message: `unexpected ${charAt(text, i)} after the end of the JSON value` };
      const close = container === 0x7b ? '}' : ']';
      if (i === text.length) return { offset: i, message: `the text ends before the closing '${close}'` };
      const c = text.charCodeAt(i);
      if (c === 0x2c) {
        i = skipSpace(text, i + 1);
        expect = container === 0x7b ? Expect.PropertyName : Expect.Value;
        continue;
      }
      if (c === close.charCodeAt(0)) {
        open.pop();
        i++;
        continue;
      }
      return { offset: i, message: `expected ',' or '${close}' ${container === 0x7b ? 'after a property value' : 'after an array element'}, found ${charAt(text, i)}` };
    }
    i = skipSpace(text, i);
    if (expect === Expect.FirstProperty || expect === Expect.PropertyName) {
      if (expect === Expect.FirstProperty && text.charCodeAt(i) === 0x7d) {
        open.pop();
        i++;
        expect = Expect.AfterValue;
        continue;
      }
      if (text.charCodeAt(i) !== 0x22) {
        const trailing = expect === Expect.PropertyName && text.charCodeAt(i) === 0x7d ? ' (no comma before a closing bracket)' : '';
        return { offset: i, message: `expected a property name in double quotes, found ${charAt(text, i)}${trailing}` };
      }
      const end = stringEnd(text, i);
      if (typeof end !== 'number') return end;
      i = skipSpace(text, end);
      if (text.charCodeAt(i) !== 0x3a) return { offset: i, message: `expected ':' after a property name, found ${charAt(text, i)}` };
      i++;
      expect = Expect.Value;
      continue;
    }
    if (expect === Expect.FirstElement && text.charCodeAt(i) === 0x5d) {
      open.pop();
      i++;
      expect = Expect.AfterValue;
      continue;
    }
    // A value.
    if (i === text.length) return { offset: i, message: 'the text ends where a value should be' };
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      open.push(c);
      i++;
      expect = c === 0x7b ? Expect.FirstProperty : Expect.FirstElement;
      continue;
    }
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (typeof end !== 'number') return end;
      i = end;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const end = numberEnd(text, i);
      if (end === -1) return { offset: i, message: 'invalid number' };
      i = end;
    } else {
      const literal = ['true', 'false', 'null'].find((word) => text.startsWith(word, i));
      if (literal === undefined) return { offset: i, message: `unexpected ${charAt(text, i)} where a value should be (${c === 0x5d || c === 0x7d ? 'no comma before a closing bracket' : 'strings go in double quotes'})` };
      i += literal.length;
    }
    expect = Expect.AfterValue;
  }
}

/** One past the closing quote of the string opening at `start`, or the error inside it. */
function stringEnd(text: string, start: number): number | JsonSyntaxError {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return { offset: i, message: `${charAt(text, i)} inside a string (write it as an escape such as \\n)` };
    if (c === 0x5c) {
      const escape = text[i + 1];
      if (escape === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return { offset: i, message: 'invalid \\u escape in a string (four hex digits)' };
        i += 5;
      } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) i++;
      else return { offset: i, message: 'invalid escape in a string' };
    }
  }
  return { offset: text.length, message: 'the text ends inside a string' };
}

/** One past the number starting at `start`; -1 when it is not a JSON number. */
function numberEnd(text: string, start: number): number {
  const match = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
  match.lastIndex = start;
  const found = match.exec(text);
  if (found === null) return -1;
  const end = start + found[0].length;
  // "01", "1.", "1e": a digit, point or exponent the pattern could not take is part of a bad number.
  const next = text[end];
  return next !== undefined && /[0-9.eE]/.test(next) ? -1 : end;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** The one character at `i`, quoted, or "the end of the text": never more of the text. */
function charAt(text: string, i: number): string {
  if (i >= text.length) return 'the end of the text';
  const code = text.codePointAt(i)!;
  if (code < 0x20 || code === 0x7f) return `control character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return `'${String.fromCodePoint(code)}'`;
}

/**
 * " at character N: what is wrong", or "" when the scan finds nothing: the tail of an error message
 * for a text JSON.parse refused (a request body, a line of a file, a header), in place of V8's.
 */
export function jsonErrorDetail(text: string): string {
  const error = jsonSyntaxError(text);
  return error === null ? '' : ` at character ${error.offset + 1}: ${error.message}`;
}
