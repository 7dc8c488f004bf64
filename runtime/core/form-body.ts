// A multipart/form-data request body (audio transcriptions and translations, image edits and
// variations) as routing sees it: its text fields are the request's parameters, so conditions on
// `params.model` route it and a log record names its model, and a config's `override_params` are
// applied to those fields before the body is sent, the file parts passed on byte for byte.
import { GatewayError } from './errors.ts';
import { FilePartTooLarge, type FormPart, MultipartError, MultipartReader } from './multipart.ts';

/** Forms of inference uploads: one or two files and a handful of fields, the body itself bounded by the server. */
const LIMITS = { maxFileBytes: Number.MAX_SAFE_INTEGER, maxFieldBytes: 1024 * 1024, maxParts: 64, maxHeaderBytes: 16 * 1024 };

/** The parts of a buffered form body; 400 `invalid_request_body` when it is not well-formed. */
export function formParts(body: Buffer, boundary: string): FormPart[] {
  const reader = new MultipartReader(boundary, LIMITS);
  try {
    reader.push(body);
    return reader.end();
  } catch (error) {
    if (error instanceof MultipartError || error instanceof FilePartTooLarge) throw new GatewayError('invalid_request_body', `The multipart/form-data body is not well-formed: ${error.message}`, 'content-type');
    throw error;
  }
}

/** The text fields as parameters: a repeated name (`timestamp_granularities[]`) gives a list. File parts are not parameters. */
export function formParams(parts: readonly FormPart[]): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const part of parts) {
    if (part.filename !== null) continue;
    const value = part.data.toString('utf8');
    const seen = Object.hasOwn(params, part.name) ? params[part.name] : undefined;
    const next = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
    Object.defineProperty(params, part.name, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return params;
}

/**
 * The body with `overrides` applied to its text fields: an overridden field's value replaced (all its
 * parts, by one), a new one appended, `null` removing it. Strings go as they are, numbers and
 * booleans as text, objects and lists as JSON. A file part cannot be overridden. The client's
 * boundary is kept, so a value holding it is refused (the client can choose another).
 */
export function overriddenForm(parts: readonly FormPart[], boundary: string, overrides: Readonly<Record<string, unknown>>): { body: Buffer; params: Record<string, string | string[]> } {
  const kept: FormPart[] = [];
  const replaced = new Set<string>();
  const delimiter = `--${boundary}`;
  const fieldOf = (name: string, value: unknown): FormPart | null => {
    if (value === null || value === undefined) return null;
    const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
    if (text.includes(delimiter)) throw new GatewayError('invalid_request_body', `The config's override_params.${name} holds the form's boundary; send the form with another boundary.`, 'content-type');
    return { name, filename: null, contentType: null, data: Buffer.from(text) };
  };
  for (const part of parts) {
    if (!Object.hasOwn(overrides, part.name)) {
      kept.push(part);
      continue;
    }
    if (part.filename !== null) throw new GatewayError('unsupported_parameter', `The config's override_params names "${part.name}", the uploaded file of this form: a file cannot be overridden.`, `override_params.${part.name}`);
    if (replaced.has(part.name)) continue;
    replaced.add(part.name);
    const field = fieldOf(part.name, overrides[part.name]);
    if (field !== null) kept.push(field);
  }
  for (const name of Object.keys(overrides)) {
    if (parts.some((part) => part.name === name)) continue;
    if (/[\r\n]/.test(name)) throw new GatewayError('invalid_request_body', 'The config\'s override_params has a name with a line break, which a form field cannot have.', 'override_params');
    const field = fieldOf(name, overrides[name]);
    if (field !== null) kept.push(field);
  }
  return { body: encodeForm(kept, boundary), params: formParams(kept) };
}

/**
 * The form with `params` as its whole set of text fields (a before-request hook's new request body):
 * fields it lacks are removed, its values written as by overriddenForm, the files kept.
 */
export function rewrittenForm(body: Buffer, boundary: string, params: Readonly<Record<string, unknown>>): Buffer {
  const parts = formParts(body, boundary);
  const overrides: Record<string, unknown> = { ...params };
  for (const part of parts) if (part.filename === null && !Object.hasOwn(params, part.name)) overrides[part.name] = null;
  return overriddenForm(parts, boundary, overrides).body;
}

/** multipart/form-data bytes of `parts` under `boundary` (RFC 7578). */
export function encodeForm(parts: readonly FormPart[], boundary: string): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(part.name)}"`;
    if (part.filename !== null) head += `; filename="${quoted(part.filename)}"`;
    if (part.contentType !== null) head += `\r\nContent-Type: ${part.contentType}`;
    chunks.push(Buffer.from(`${head}\r\n\r\n`), part.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

function quoted(text: string): string {
  return text.replace(/["\\]/g, '\\$&');
}
