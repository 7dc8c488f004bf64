// An emulated response as the Responses API's event stream (`stream: true`): numbered events in
// server-sent-event frames, from `response.created` to `response.completed` (or `incomplete`, or
// `failed`), the items' own events between them as the output builder tells them
// (output-builder.ts). Delta events carry `obfuscation` (random characters that vary their size, as
// the vendor's do) unless the request's `stream_options.include_obfuscation` is false.
import { randomBytes } from 'node:crypto';
import type { EventSink } from './output-builder.ts';

export interface EventOptions {
  obfuscation: boolean;
}

export class ResponseEventFrames {
  readonly #obfuscation: boolean;
  #sequence = 0;
  #frames = '';

  constructor(options: EventOptions) {
    this.#obfuscation = options.obfuscation;
  }

  /** Frames an event (the builder's sink). */
  readonly emit: EventSink = (type, fields, delta = false) => {
    const event = { type, sequence_number: this.#sequence++, ...fields, ...(delta && this.#obfuscation ? { obfuscation: padding() } : {}) };
    this.#frames += `event: ${type}\ndata: ${JSON.stringify(event)}\n\n`;
  };

  /** The response begins: `response` as it stands before any output. */
  opening(response: Record<string, unknown>): void {
    const pending = { ...response, status: 'in_progress', output: [], output_text: '', usage: null, incomplete_details: null };
    this.emit('response.created', { response: pending });
    this.emit('response.in_progress', { response: pending });
  }

  /** The response is finished: completed, incomplete or failed, as its status says. */
  closing(response: Record<string, unknown>): void {
    this.emit(response.status === 'incomplete' ? 'response.incomplete' : response.status === 'failed' ? 'response.failed' : 'response.completed', { response });
  }

  /** An error the response's stream ends with, outside the response (its storing failed after it was generated). */
  error(code: string, message: string, param: string | null = null): void {
    this.emit('error', { code, message, param });
  }

  /** The frames made since the last call. */
  take(): string {
    const frames = this.#frames;
    this.#frames = '';
    return frames;
  }
}

/** 1 to 16 random characters. */
function padding(): string {
  const bytes = randomBytes(13);
  return bytes.toString('base64url').slice(0, 1 + (bytes[0]! % 16));
}
