// What each message of cloud C's own streams carries, as its pass-through forwards them: converse-
// stream's events (a JSON payload, named by the message's `:event-type`), and a Claude model's
// invoke-with-response-stream's, whose `chunk` events each carry one event of the messages API's
// stream as base64 `bytes`. Read by the log's usage tap and by the guardrails' held stream.
import type { EventMessage } from './event-stream.ts';
import { jsonObjectOf } from '../shared/errors.ts';

type Json = Record<string, unknown>;

/** The invoke stream's event whose payload carries one event of the model vendor's own stream. */
const CHUNK_EVENT = 'chunk';

/** Where the service puts its counts in an invoke stream's last chunk, beside the model's own members, whatever its format. */
export const INVOCATION_METRICS = 'amazon-bedrock-invocationMetrics';

/**
 * An invoke stream chunk's own members but `except` into `into`, the whole answer a stream's chunks
 * stand for: a null member overwrites nothing, the service's metrics are not the model's answer, and
 * a `__proto__` member would set the object's prototype.
 */
export function keepChunkMembers(into: Json, chunk: Json, except: readonly string[]): void {
  for (const [name, value] of Object.entries(chunk)) if (value !== null && name !== INVOCATION_METRICS && name !== '__proto__' && !except.includes(name)) into[name] = value;
}

export interface OwnStreamEvent {
  /** The message's JSON payload (an invoke stream's: the `chunk` around the event); null for an exception or a payload that is no JSON object. */
  payload: Json | null;
  /** The event it carries: converse's payload, or the messages API's event inside a chunk; null when none. */
  json: Json | null;
  /** Its type where the framing names it apart (converse's `:event-type`); a messages event names its own. */
  type: string | undefined;
}

/** The event `message` carries; `chunked`: an invoke stream, whose events come inside `chunk` events. */
export function ownStreamEventOf(message: EventMessage, chunked: boolean): OwnStreamEvent {
  const named = message.headers[':message-type'] === 'event' ? message.headers[':event-type'] : undefined;
  const type = typeof named === 'string' ? named : undefined;
  const payload = type === undefined ? null : jsonObjectOf(message.payload);
  if (!chunked) return { payload, json: payload, type };
  const json = type === CHUNK_EVENT && payload !== null && typeof payload.bytes === 'string' ? jsonObjectOf(Buffer.from(payload.bytes, 'base64')) : null;
  return { payload, json, type: undefined };
}

/** A `chunk` payload carrying `event` instead of its own (a rewritten messages event), its other members kept. */
export function rechunked(payload: Json | null, event: Json): Json {
  return { ...payload, bytes: Buffer.from(JSON.stringify(event)).toString('base64') };
}
