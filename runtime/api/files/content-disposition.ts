// The content-disposition of a file the gateway serves back. A filename is the client's text, any
// Unicode: a header carries Latin-1 at most, and node refuses anything else (one Japanese or emoji
// filename made its file impossible to download, a 500). RFC 6266 gives two forms: `filename` with an
// ASCII stand-in for old clients, and `filename*` with the name itself, UTF-8 and percent-encoded
// (RFC 8187), which every current client reads first.

/** RFC 8187 attr-char: what `filename*` may carry as it is; every other byte is percent-encoded. */
const ATTR_CHAR = /[A-Za-z0-9!#$&+\-.^_`|~]/;

export function attachmentDisposition(filename: string): string {
  // Printable ASCII only, without the quote and backslash that would end or escape the quoted string.
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  if (ascii === filename) return `attachment; filename="${ascii}"`;
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeAttr(filename)}`;
}

function encodeAttr(text: string): string {
  let out = '';
  // A lone surrogate has no UTF-8 form: it is written as U+FFFD, as the UTF-8 decoding of the name would show it.
  for (const byte of Buffer.from(text.toWellFormed(), 'utf8')) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && ATTR_CHAR.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
