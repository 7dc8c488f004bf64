// An incremental server-sent-events parser (WHATWG HTML §9.2.6): bytes in, complete events out.
// Used to read the streams of SSE-speaking providers; UTF-8 split across chunks is handled.

export interface SseEvent {
  /** The `event:` field; `message` when absent. */
  event: string;
  data: string;
}

export class SseParser {
  readonly #decoder = new TextDecoder('utf-8');
  #buffer = '';
  #event = '';
  #data: string[] = [];
  #sawCr = false;

  /** Feeds bytes; returns the events they complete. */
  push(chunk: Buffer | Uint8Array): SseEvent[] {
    return this.#lines(this.#decoder.decode(chunk, { stream: true }));
  }

  /** The stream ended: an event without its blank line is dropped, as the standard says. */
  end(): SseEvent[] {
    const events = this.#lines(this.#decoder.decode());
    this.#buffer = '';
    this.#data = [];
    this.#event = '';
    return events;
  }

  #lines(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    // A CR that ended the previous chunk already ended its line; a LF right after it is the same line break.
    if (this.#sawCr && text.startsWith('\n')) start = 1;
    this.#sawCr = false;
    const buffer = this.#buffer + text.slice(start);
    let from = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.#line(buffer.slice(from, i), events);
      if (c === 13) {
        if (i + 1 < buffer.length) {
          if (buffer.charCodeAt(i + 1) === 10) i++;
        } else {
          this.#sawCr = true;
        }
      }
      from = i + 1;
    }
    this.#buffer = buffer.slice(from);
    return events;
  }

  #line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.#data.length > 0) events.push({ event: this.#event === '' ? 'message' : this.#event, data: this.#data.join('\n') });
      this.#data = [];
      this.#event = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
  }
}
