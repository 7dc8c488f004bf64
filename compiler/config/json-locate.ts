// Parses a config file and remembers where every value and key stands, so an error found by JSON
// pointer can be shown at its line and column. JSON.parse decides validity and the value; a light
// scanner over the (then known-valid) text records positions and duplicate keys.
import { jsonSyntaxError } from './json-syntax-error.ts';
import { parseJson } from './json-parse.ts';

export interface SourcePosition {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units like editors count. */
  column: number;
}

export interface SourceMap {
  /** Where each value starts, by JSON pointer. */
  values: Map<string, SourcePosition>;
  /** Where each property's key starts, by the property's JSON pointer. */
  keys: Map<string, SourcePosition>;
  /** Keys that appear twice in one object (the pointer of the later one). */
  duplicates: Array<{ pointer: string; position: SourcePosition }>;
}

export type ParsedSource =
  | { ok: true; value: unknown; map: SourceMap }
  | { ok: false; message: string; position: SourcePosition };

export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * A config file's text without the byte-order mark some editors (Notepad, PowerShell's Out-File)
 * write first: JSON.parse refuses it, and the file is valid JSON to whoever wrote it.
 */
export function withoutByteOrderMark(source: string): string {
  return source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
}

const UTF16_MESSAGE = 'the file is UTF-16 text (as Windows PowerShell\'s ">" and Out-File write it); save it as UTF-8';

/**
 * Text read as UTF-8 from a UTF-16 file: its byte-order mark (FF FE or FE FF) became two U+FFFD, and
 * an ASCII character's zero byte a U+0000 beside it. The syntax error would name a "�" at 1:1.
 */
function isUtf16(text: string): boolean {
  return (text.charCodeAt(0) === 0xfffd && text.charCodeAt(1) === 0xfffd) || (text.length > 1 && (text.charCodeAt(0) === 0 || text.charCodeAt(1) === 0));
}

export function parseWithPositions(source: string): ParsedSource {
  const text = withoutByteOrderMark(source);
  const lineStarts = computeLineStarts(text);
  let value: unknown;
  try {
    // parseJson: V8's JSON.parse can misread an escaped key (compiler/config/json-parse.ts).
    value = parseJson(text);
  } catch {
    // Our own scan, not V8's message: that one quotes the text around the error (in a config, often
    // a credential) and gives no position for an unexpected token.
    if (isUtf16(text)) return { ok: false, message: UTF16_MESSAGE, position: { line: 1, column: 1 } };
    const error = jsonSyntaxError(text) ?? { offset: text.length, message: 'not valid JSON' };
    return { ok: false, message: error.message, position: toPosition(lineStarts, error.offset) };
  }
  return { ok: true, value, map: new Scanner(text, lineStarts).run() };
}

/** Where to show an error at `pointer`: the key for key errors, else the value, else the nearest existing ancestor. */
export function locate(map: SourceMap, pointer: string, preferKey = false): SourcePosition {
  let current = pointer;
  for (;;) {
    const found = (preferKey ? map.keys.get(current) : undefined) ?? map.values.get(current);
    if (found) return found;
    if (current === '') return { line: 1, column: 1 };
    current = current.slice(0, current.lastIndexOf('/'));
  }
}

function computeLineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

function toPosition(lineStarts: number[], offset: number): SourcePosition {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (lineStarts[mid] <= offset) low = mid;
    else high = mid - 1;
  }
  return { line: low + 1, column: offset - lineStarts[low] + 1 };
}

class Scanner {
  private i = 0;
  private readonly text: string;
  private readonly lineStarts: number[];
  private readonly map: SourceMap = { values: new Map(), keys: new Map(), duplicates: [] };

  constructor(text: string, lineStarts: number[]) {
    this.text = text;
    this.lineStarts = lineStarts;
  }

  run(): SourceMap {
    this.value('');
    return this.map;
  }

  private here(): SourcePosition {
    return toPosition(this.lineStarts, this.i);
  }

  private skipWhitespace(): void {
    while (this.i < this.text.length) {
      const c = this.text.charCodeAt(this.i);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return;
      this.i++;
    }
  }

  private value(pointer: string): void {
    this.skipWhitespace();
    this.map.values.set(pointer, this.here());
    const c = this.text[this.i];
    if (c === '{') this.object(pointer);
    else if (c === '[') this.array(pointer);
    else if (c === '"') this.string();
    else while (this.i < this.text.length && !',}] \t\r\n'.includes(this.text[this.i])) this.i++;
  }

  private object(pointer: string): void {
    this.i++;
    const seen = new Set<string>();
    this.skipWhitespace();
    if (this.text[this.i] === '}') {
      this.i++;
      return;
    }
    for (;;) {
      this.skipWhitespace();
      const keyPosition = this.here();
      const start = this.i;
      this.string();
      const key = JSON.parse(this.text.slice(start, this.i)) as string;
      const child = `${pointer}/${escapePointerToken(key)}`;
      if (seen.has(key)) this.map.duplicates.push({ pointer: child, position: keyPosition });
      seen.add(key);
      this.map.keys.set(child, keyPosition);
      this.skipWhitespace();
      this.i++; // ':'
      this.value(child);
      this.skipWhitespace();
      if (this.text[this.i++] === '}') return;
    }
  }

  private array(pointer: string): void {
    this.i++;
    this.skipWhitespace();
    if (this.text[this.i] === ']') {
      this.i++;
      return;
    }
    for (let index = 0; ; index++) {
      this.value(`${pointer}/${index}`);
      this.skipWhitespace();
      if (this.text[this.i++] === ']') return;
    }
  }

  private string(): void {
    this.i++;
    while (this.i < this.text.length) {
      const c = this.text[this.i++];
      if (c === '\\') this.i++;
      else if (c === '"') return;
    }
  }
}
