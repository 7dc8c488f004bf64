// A chat message's `file` part, as the vendor's chat API takes a document inline (a PDF, mostly):
// `{"type": "file", "file": {"file_data": "data:application/pdf;base64,…", "filename": "report.pdf"}}`.
// Read once here for the translations, each of which sends it as its family's own document (the
// messages API's `document` block, converse's `document`, generateContent's `inlineData`). A
// `file_id` names a file in the vendor's Files API, which no other family can read: refused.
import { GatewayError } from '../../core/errors.ts';
import { type ChatContentPart, parseDataUrl } from './chat.ts';

export interface InlineFile {
  /** The data URL's media type, lowercase. */
  mediaType: string;
  /** Base64. */
  data: string;
  filename: string | undefined;
}

/** The document a file part carries, when the family takes its media type (`takes`, named for the error as `family`). */
export function inlineFileOf(part: ChatContentPart, provider: string, takes: ReadonlySet<string>, family: string): InlineFile {
  const file = (part as { file?: { file_data?: unknown; file_id?: unknown; filename?: unknown } }).file ?? {};
  if (typeof file.file_id === 'string') {
    throw new GatewayError('unsupported_parameter', `A file part's file_id names a file in the vendor's Files API, which the provider "${provider}" cannot read: send the file inline (file.file_data, a base64 data URL).`, 'messages');
  }
  const inline = typeof file.file_data === 'string' ? parseDataUrl(file.file_data) : null;
  if (inline === null) throw new GatewayError('invalid_request_body', 'Invalid request body: a file part needs file.file_data, a base64 data URL (data:application/pdf;base64,…).', 'messages');
  const mediaType = inline.mediaType.toLowerCase();
  if (!takes.has(mediaType)) {
    throw new GatewayError('unsupported_parameter', `The provider "${provider}" takes documents in ${family} of the types ${[...takes].join(', ')}; a file of type "${mediaType}" cannot be sent to it.`, 'messages');
  }
  return { mediaType, data: inline.data, filename: typeof file.filename === 'string' && file.filename !== '' ? file.filename : undefined };
}
