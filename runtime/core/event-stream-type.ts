// Whether an answer is a server-sent-event stream, by its content type (a media type with or
// without parameters: `text/event-stream; charset=utf-8`). One test for every layer that treats a
// stream apart: metering, caching, judging, sending, and reading an emulated response's chat stream.

export function isEventStreamType(contentType: unknown): boolean {
  return typeof contentType === 'string' && contentType.startsWith('text/event-stream');
}
