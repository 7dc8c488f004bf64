// A stream of a family's own chat API through the pass-through, held whole for the output checks
// (as held-stream.ts holds the gateway's own), in any of its framings: SSE (the messages API,
// generateContent with alt=sse), one JSON array (generateContent streamed without alt=sse) and AWS's
// binary event stream (converse-stream; an invoke stream, whose `chunk` events carry the model
// vendor's own events as base64: a Claude model's the messages API's). Its answer is the dialect's whole JSON answer; a text the
// checks rewrote goes back, slot by slot (a block's or candidate's text, its reasoning), in the first
// delta that carried that slot, its later pieces emptied, every other event as it came.
import { parseJson } from '../../../../compiler/config/json-parse.ts';
import { eventMessageBytes, EventStreamDecoder, EventStreamError } from '../../../providers/cloudc/event-stream.ts';
import { ownStreamEventOf, rechunked } from '../../../providers/cloudc/own-stream-events.ts';
import { SseParser } from '../../../providers/shared/sse.ts';
import type { TextDialect } from '../../metered-pass-through.ts';
import { eventText, jsonOf } from '../held-stream.ts';
import { isObject, type Json, type OwnText, type Piece } from './own-text.ts';
import { OWN_TEXTS } from './own-texts.ts';

export type OwnFraming = 'sse' | 'array' | 'event-stream';

export interface OwnHeldStream {
  /** The whole answer the stream stands for, for the checks. */
  answer: Json;
  /** The stream's bytes with the texts of `judged` (the answer as the checks left it) in place. */
  rewritten(judged: unknown): Buffer;
}

/** Why a held stream has no answer the checks can read: its framing is broken. */
export const CORRUPT_STREAM = 'the answer\'s event stream is corrupt, where no check can tell the text; not judged';

/** `bytes` held in `dialect` as `framing` frames it; null when they are not so framed (a corrupt event stream, JSON that is no array). */
export function holdOwnStream(dialect: TextDialect, framing: OwnFraming, bytes: Buffer): OwnHeldStream | null {
  const text = OWN_TEXTS[dialect];
  switch (framing) {
    case 'sse': return heldSse(text, bytes);
    case 'array': return heldArray(text, bytes);
    // Every event stream but converse-stream is an invoke stream, its events in `chunk`s.
    case 'event-stream': return heldEventStream(text, dialect !== 'converse', bytes);
  }
}

/** The events' pieces read into the answer; `place` puts a judged answer's texts back, marking the events it changed. */
class Placement {
  readonly answer: Json;
  readonly #text: OwnText;
  readonly #pieces: Piece[][];

  constructor(text: OwnText, events: ReadonlyArray<{ json: Json | null; type: string | undefined }>) {
    this.#text = text;
    const reader = text.streamReader();
    this.#pieces = events.map((event) => (event.json === null ? [] : reader.read(event.json, event.type)));
    this.answer = reader.answer();
  }

  /** The indexes of the events whose JSON now carries a rewritten text. */
  place(judged: unknown): Set<number> {
    const changed = new Set<number>();
    const before = this.#text.slots(this.answer);
    const after = this.#text.slots(judged);
    for (const [slot, was] of before) {
      // A slot the judged answer lacks (a webhook's answer left it out) is emptied.
      const now = after.get(slot) ?? '';
      if (now === was) continue;
      const carrying: Array<[number, Piece]> = [];
      this.#pieces.forEach((pieces, at) => {
        for (const piece of pieces) if (piece.slot === slot) carrying.push([at, piece]);
      });
      const first = carrying.find(([, piece]) => piece.primary) ?? carrying[0];
      for (const entry of carrying) {
        entry[1].put(entry === first ? now : '');
        changed.add(entry[0]);
      }
    }
    return changed;
  }
}

function heldSse(text: OwnText, bytes: Buffer): OwnHeldStream {
  const parser = new SseParser(Math.max(1, bytes.length));
  const events = [...parser.push(bytes), ...parser.end()].map((event) => ({ ...event, json: jsonOf(event.data), type: undefined }));
  const placement = new Placement(text, events);
  return {
    answer: placement.answer,
    rewritten(judged) {
      const changed = placement.place(judged);
      return Buffer.from(events.map((event, at) => eventText(event.event, changed.has(at) ? JSON.stringify(event.json) : event.data)).join(''));
    },
  };
}

/** generateContent streamed without alt=sse: one JSON array of its events. */
function heldArray(text: OwnText, bytes: Buffer): OwnHeldStream | null {
  let elements: unknown;
  try {
    elements = parseJson(bytes.toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(elements)) return null;
  const placement = new Placement(text, elements.map((element: unknown) => ({ json: isObject(element) ? element : null, type: undefined })));
  return {
    answer: placement.answer,
    rewritten(judged) {
      return placement.place(judged).size === 0 ? bytes : Buffer.from(JSON.stringify(elements));
    },
  };
}

function heldEventStream(text: OwnText, chunked: boolean, bytes: Buffer): OwnHeldStream | null {
  const decoder = new EventStreamDecoder();
  let messages;
  try {
    messages = decoder.push(bytes);
  } catch (error) {
    if (error instanceof EventStreamError) return null;
    throw error;
  }
  // A stream cut inside its last message: those bytes go on as they came.
  const rest = bytes.subarray(bytes.length - decoder.pending);
  const events = messages.map((message) => ({ message, ...ownStreamEventOf(message, chunked) }));
  const placement = new Placement(text, events);
  return {
    answer: placement.answer,
    rewritten(judged) {
      const changed = placement.place(judged);
      if (changed.size === 0) return bytes;
      const out = events.map((event, at) => {
        if (!changed.has(at)) return eventMessageBytes(event.message.headerBytes, event.message.payload);
        const payload = chunked ? rechunked(event.payload, event.json!) : event.json;
        return eventMessageBytes(event.message.headerBytes, Buffer.from(JSON.stringify(payload)));
      });
      return Buffer.concat([...out, rest]);
    },
  };
}
