// An incremental multipart/form-data reader (RFC 7578) for uploads: bytes go in as they arrive, in
// chunks of any size, and parts come out whole. Part sizes are checked while reading, so an upload
// past the limit is refused as soon as it crosses it rather than after it is all in memory. Part
// bodies are the only thing kept; the reader's own buffer never holds more than one chunk plus a
// delimiter's length.

export interface FormPart {
  name: string;
  /** Present for file parts. */
  filename: string | null;
  contentType: string | null;
  data: Buffer;
}

export interface MultipartLimits {
  /** Bytes of any part with a filename. */
  maxFileBytes: number;
  /** Bytes of any other field. */
  maxFieldBytes: number;
  maxParts: number;
  /** Bytes of one part's header block. */
  maxHeaderBytes: number;
}

export const DEFAULT_MULTIPART_LIMITS: Omit<MultipartLimits, 'maxFileBytes'> = { maxFieldBytes: 64 * 1024, maxParts: 16, maxHeaderBytes: 16 * 1024 };

/** The body is not well-formed multipart, or breaks a limit other than the file size. */
export class MultipartError extends Error {
  override readonly name = 'MultipartError';
}

/** A file part grew past `maxFileBytes`. */
export class FilePartTooLarge extends Error {
  override readonly name = 'FilePartTooLarge';
}

/** The boundary of a `multipart/form-data` content type; null for any other type. */
export function boundaryOf(contentType: string | undefined): string | null {
  if (contentType === undefined || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return null;
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^;\s"]{1,70}))/i.exec(contentType);
  return match === null ? null : (match[1] ?? match[2]);
}

type State = 'preamble' | 'after-boundary' | 'headers' | 'body' | 'done';

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

export class MultipartReader {
  readonly #limits: MultipartLimits;
  /** `--boundary`: the first delimiter may start the body without a preceding CRLF. */
  readonly #dashBoundary: Buffer;
  /** `\r\n--boundary`: every later delimiter. */
  readonly #delimiter: Buffer;
  #buffer: Buffer = Buffer.alloc(0);
  #state: State = 'preamble';
  readonly #parts: FormPart[] = [];
  #current: { name: string; filename: string | null; contentType: string | null; chunks: Buffer[]; size: number } | null = null;

  constructor(boundary: string, limits: MultipartLimits) {
    this.#limits = limits;
    this.#dashBoundary = Buffer.from(`--${boundary}`);
    this.#delimiter = Buffer.concat([CRLF, this.#dashBoundary]);
  }

  get done(): boolean {
    return this.#state === 'done';
  }

  push(chunk: Buffer): void {
    if (this.#state === 'done') return; // the epilogue is ignored
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    this.#drain();
  }

  /** The parts, once the closing delimiter was read; throws when the body ended early. */
  end(): FormPart[] {
    if (this.#state !== 'done') throw new MultipartError('The multipart body ends before its closing boundary.');
    return this.#parts;
  }

  #drain(): void {
    for (;;) {
      switch (this.#state) {
        case 'preamble': {
          const at = this.#buffer.indexOf(this.#dashBoundary);
          if (at < 0) {
            // Keep a tail that might be the start of the boundary; the preamble itself is dropped.
            this.#keepTail(this.#dashBoundary.length - 1);
            return;
          }
          this.#buffer = this.#buffer.subarray(at + this.#dashBoundary.length);
          this.#state = 'after-boundary';
          break;
        }
        case 'after-boundary': {
          if (this.#buffer.length < 2) return;
          const next = this.#buffer.subarray(0, 2).toString('latin1');
          if (next === '--') {
            this.#state = 'done';
            this.#buffer = Buffer.alloc(0);
            return;
          }
          if (next !== '\r\n') throw new MultipartError('A multipart boundary is not followed by a line break.');
          this.#buffer = this.#buffer.subarray(2);
          this.#state = 'headers';
          break;
        }
        case 'headers': {
          const at = this.#buffer.indexOf(HEADER_END);
          if (at < 0) {
            if (this.#buffer.length > this.#limits.maxHeaderBytes) throw new MultipartError('A multipart part has too long a header block.');
            return;
          }
          if (this.#parts.length >= this.#limits.maxParts) throw new MultipartError(`A form may have at most ${this.#limits.maxParts} parts.`);
          this.#current = { ...parseHeaders(this.#buffer.subarray(0, at).toString('utf8')), chunks: [], size: 0 };
          this.#buffer = this.#buffer.subarray(at + HEADER_END.length);
          this.#state = 'body';
          break;
        }
        case 'body': {
          const at = this.#buffer.indexOf(this.#delimiter);
          if (at < 0) {
            // Everything but a tail that might begin the delimiter belongs to the part.
            const safe = this.#buffer.length - (this.#delimiter.length - 1);
            if (safe > 0) {
              this.#append(this.#buffer.subarray(0, safe));
              this.#buffer = this.#buffer.subarray(safe);
            }
            return;
          }
          this.#append(this.#buffer.subarray(0, at));
          const part = this.#current!;
          this.#parts.push({ name: part.name, filename: part.filename, contentType: part.contentType, data: Buffer.concat(part.chunks, part.size) });
          this.#current = null;
          this.#buffer = this.#buffer.subarray(at + this.#delimiter.length);
          this.#state = 'after-boundary';
          break;
        }
        case 'done':
          return;
      }
    }
  }

  #append(bytes: Buffer): void {
    if (bytes.length === 0) return;
    const part = this.#current!;
    part.size += bytes.length;
    if (part.filename !== null && part.size > this.#limits.maxFileBytes) throw new FilePartTooLarge(`The file is larger than ${this.#limits.maxFileBytes} bytes.`);
    if (part.filename === null && part.size > this.#limits.maxFieldBytes) throw new MultipartError(`The form field "${part.name}" is larger than ${this.#limits.maxFieldBytes} bytes.`);
    // Copied: the chunk belongs to the stream and the buffer slice to the next concat.
    part.chunks.push(Buffer.from(bytes));
  }

  #keepTail(length: number): void {
    if (this.#buffer.length > length) this.#buffer = this.#buffer.subarray(this.#buffer.length - length);
  }
}

/**
 * The value of the text field `name` in a whole form body, found without reading the parts out: the
 * delimiters are searched for in place, so a 25 MB file is scanned, never copied. Null when the body
 * is not well-formed or has no such field.
 */
export function formTextField(body: Buffer, boundary: string, name: string): string | null {
  const data = formPartData(body, boundary, name, false);
  return data === null ? null : data.toString('utf8');
}

/**
 * The bytes of the first part named `name` in a whole form body (a file part when `file`, else a
 * text field), as a view of `body`: found in place, never copied. Null when the body is not
 * well-formed or has no such part.
 */
export function formPartData(body: Buffer, boundary: string, name: string, file: boolean): Buffer | null {
  const dashBoundary = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.concat([CRLF, dashBoundary]);
  let at = body.indexOf(dashBoundary);
  while (at >= 0 && body[at + dashBoundary.length] !== 0x2d) {
    const headersAt = at + dashBoundary.length + CRLF.length;
    const headersEnd = body.indexOf(HEADER_END, headersAt);
    if (headersEnd < 0) return null;
    const next = body.indexOf(delimiter, headersEnd);
    if (next < 0) return null;
    let part: { name: string; filename: string | null };
    try {
      part = parseHeaders(body.toString('utf8', headersAt, headersEnd));
    } catch {
      return null;
    }
    if (part.name === name && (part.filename !== null) === file) return body.subarray(headersEnd + HEADER_END.length, next);
    at = next + CRLF.length;
  }
  return null;
}

function parseHeaders(block: string): { name: string; filename: string | null; contentType: string | null } {
  let disposition: string | null = null;
  let contentType: string | null = null;
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MultipartError('A multipart part header is malformed.');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-disposition') disposition = value;
    else if (name === 'content-type') contentType = value;
  }
  if (disposition === null || !/^form-data\s*(;|$)/i.test(disposition)) throw new MultipartError('A multipart part has no form-data content-disposition.');
  const name = dispositionParam(disposition, 'name');
  if (name === null) throw new MultipartError('A multipart part has no name.');
  return { name, filename: dispositionParam(disposition, 'filename'), contentType };
}

/** `name="x"`, `name=x`; a quoted value may contain `\"`. */
function dispositionParam(disposition: string, param: string): string | null {
  const match = new RegExp(`;\\s*${param}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]+))`, 'i').exec(disposition);
  if (match === null) return null;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}
