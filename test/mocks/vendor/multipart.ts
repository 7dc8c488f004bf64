// A small multipart/form-data reader, enough for the vendor's upload endpoints.

export interface FilePart {
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface FormData {
  fields: Record<string, string>;
  /** The last file of each name. */
  files: Record<string, FilePart>;
  /** How many files came under each name (an image edit's `image[]` repeats). */
  fileCounts: Record<string, number>;
}

export function boundaryOf(contentType: string | undefined): string | null {
  if (contentType === undefined || !/^multipart\/form-data\b/i.test(contentType)) return null;
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match === null ? null : (match[1] ?? match[2]);
}

function headerParam(header: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}="([^"]*)"`, 'i').exec(header);
  return match?.[1];
}

/** Parses a multipart body; null when it is malformed. */
export function parseMultipart(body: Buffer, boundary: string): FormData | null {
  const delimiter = Buffer.from(`--${boundary}`);
  const form: FormData = { fields: Object.create(null), files: Object.create(null), fileCounts: Object.create(null) };
  let start = body.indexOf(delimiter);
  if (start < 0) return null;
  for (;;) {
    start += delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') return form;
    if (body.subarray(start, start + 2).toString() !== '\r\n') return null;
    start += 2;
    const headerEnd = body.indexOf('\r\n\r\n', start);
    if (headerEnd < 0) return null;
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next < 0) return null;
    const headers = body.subarray(start, headerEnd).toString('utf8').split('\r\n');
    const data = body.subarray(headerEnd + 4, next);
    const disposition = headers.find((h) => /^content-disposition:/i.test(h));
    const name = disposition === undefined ? undefined : headerParam(disposition, 'name');
    if (name === undefined) return null;
    const filename = headerParam(disposition!, 'filename');
    if (filename === undefined) {
      form.fields[name] = data.toString('utf8');
    } else {
      const type = headers.find((h) => /^content-type:/i.test(h));
      form.files[name] = {
        filename,
        contentType: type === undefined ? 'application/octet-stream' : type.slice(type.indexOf(':') + 1).trim(),
        data: Buffer.from(data),
      };
      form.fileCounts[name] = (form.fileCounts[name] ?? 0) + 1;
    }
    start = next + 2;
  }
}
