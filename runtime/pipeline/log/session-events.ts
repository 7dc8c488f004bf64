// One direction of a realtime session's events as the request log keeps them with
// GATEWAY_LOG_BODIES=on (the record's request body: the client's; its response body: the
// provider's): each text event a line, in order, up to the cap and a margin for redaction
// (telemetry/redact.ts), then no more. Audio in base64 (`input_audio_buffer.append`'s `audio`, an
// audio delta's `delta`) is replaced by its length: megabytes a log reader cannot use, which would
// fill the cap before the first word.
import { REDACT_MARGIN, redactBody } from '../../telemetry/redact.ts';
import { peekMember } from './json-peek.ts';

/** The member holding base64 audio, by event type (the GA and the beta names). */
const AUDIO_MEMBERS: Readonly<Record<string, string>> = {
  'input_audio_buffer.append': 'audio',
  'response.output_audio.delta': 'delta',
  'response.audio.delta': 'delta',
};

export class SessionEvents {
  readonly #maxBytes: number;
  readonly #lines: string[] = [];
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Whether the kept lines reach past the cap and its margin: later events are not kept. */
  get full(): boolean {
    return this.#bytes > this.#maxBytes + REDACT_MARGIN;
  }

  add(event: Buffer): void {
    if (this.full) return;
    const type = peekMember(event, 'type');
    const line = typeof type === 'string' && Object.hasOwn(AUDIO_MEMBERS, type) ? withoutAudio(event, AUDIO_MEMBERS[type]) : event.toString('utf8');
    this.#lines.push(line);
    this.#bytes += Buffer.byteLength(line) + 1;
  }

  /** The kept events, one a line, capped and redacted; null when there were none. */
  text(): string | null {
    return this.#lines.length === 0 ? null : redactBody(this.#lines.join('\n'), this.#maxBytes, this.full);
  }
}

/** An audio event (its type peeked at) without the base64 of its `member`. */
function withoutAudio(event: Buffer, member: string): string {
  const text = event.toString('utf8');
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  const audio = parsed[member];
  if (typeof audio !== 'string') return text;
  return JSON.stringify({ ...parsed, [member]: `[${audio.length} characters of base64 audio]` });
}
