// An incremental server-sent-events parser (WHATWG HTML §9.2.6): bytes in, complete events out.
// Used to read the streams of SSE-speaking providers; UTF-8 split across chunks is handled.

export interface SseEvent {
  /** The `event:` field; `message` when absent. */
  event: string;
  data: string;
}

/** The largest event (or line) a provider may send: past it the stream is broken, not buffered on. */
export const MAX_SSE_EVENT_CHARS = 16 * 1024 * 1024;

export class SseEventTooLargeError extends Error {
  override readonly name = 'SseEventTooLargeError';
}

export class SseParser {
  readonly #decoder = new TextDecoder('utf-8');
  readonly #maxChars: number;
  /** The start of a line whose end has not arrived: pieces, joined once the line ends (never rescanned). */
  #pending: string[] = [];
  #pendingChars = 0;
  #event = '';
  #data: string[] = [];
  #dataChars = 0;
  #sawCr = false;

  constructor(maxEventChars = MAX_SSE_EVENT_CHARS) {
    this.#maxChars = maxEventChars;
  }

  /** Feeds bytes; returns the events they complete. Throws SseEventTooLargeError past the bound. */
  push(chunk: Buffer | Uint8Array): SseEvent[] {
    return this.#lines(this.#decoder.decode(chunk, { stream: true }));
  }

  /** The stream ended: an event without its blank line is dropped, as the standard says. */
  end(): SseEvent[] {
    const events = this.#lines(this.#decoder.decode());
    this.#pending = [];
    this.#pendingChars = 0;
    this.#data = [];
    this.#dataChars = 0;
    this.#event = '';
    return events;
  }

  // Each character is looked at once: text after the last line break is kept as a piece, and a line
  // is joined only when its end arrives (a long line in many chunks stays linear).
  #lines(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let from = 0;
    // A CR that ended the previous chunk already ended its line; a LF right after it is the same line break.
    if (this.#sawCr && text.startsWith('\n')) from = 1;
    this.#sawCr = false;
    for (let i = from; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      let line = text.slice(from, i);
      if (this.#pending.length > 0) {
        this.#pending.push(line);
        line = this.#pending.join('');
        this.#pending = [];
        this.#pendingChars = 0;
      }
      this.#line(line, events);
      if (c === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else {
          this.#sawCr = true;
        }
      }
      from = i + 1;
    }
    if (from < text.length) {
      this.#pendingChars += text.length - from;
      if (this.#pendingChars + this.#dataChars > this.#maxChars) throw new SseEventTooLargeError(`the provider sent an event longer than ${this.#maxChars} characters`);
      this.#pending.push(text.slice(from));
    }
    return events;
  }

  #line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.#data.length > 0) events.push({ event: this.#event === '' ? 'message' : this.#event, data: this.#data.join('\n') });
      this.#data = [];
      this.#dataChars = 0;
      this.#event = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.#dataChars += value.length + 1;
      if (this.#dataChars > this.#maxChars) throw new SseEventTooLargeError(`the provider sent an event longer than ${this.#maxChars} characters`);
      this.#data.push(value);
    } else if (field === 'event') this.#event = value;
  }
}
