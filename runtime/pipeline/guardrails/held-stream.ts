// A streamed answer held whole so output checks can judge it before the client sees a byte
// (ARCHITECTURE §5: output checks that can deny, or rewrite, hold the stream). Its text is the first
// choice's deltas joined (a spoken answer's transcript pieces, in its held answer's `audio`, as a
// JSON answer carries them); a rewritten text goes back as the content of the first event that carried
// any, the later ones carrying none, so the stream keeps its events, finish reason and usage. The
// events are read by the providers' SSE parser: any line ending the standard allows (a stream that
// ended its lines with CR alone must not reach the checks as no text at all), comments skipped,
// multi-line data joined.
import type { EndpointKind } from '../../providers/types.ts';
import { type SseEvent, SseParser } from '../../providers/shared/sse.ts';
import { parseJson } from '../../core/json-parse.ts';

interface HeldEvent extends SseEvent {
  /** The `data:` JSON, when the event carries an object (not `[DONE]`). */
  json: Record<string, unknown> | null;
}

export interface HeldStream {
  events: HeldEvent[];
  /** The first choice's text, all deltas joined. */
  text: string;
  /** The answer as one JSON body, for checks that read the whole answer (webhook, log). */
  answer: Record<string, unknown>;
}

export function holdStream(endpoint: EndpointKind, body: Buffer): HeldStream {
  // No event can be longer than the body that holds it: the parser's bound never cuts one here.
  const parser = new SseParser(Math.max(1, body.length));
  const events: HeldEvent[] = [];
  let text = '';
  let transcript: string | null = null;
  let model: unknown;
  let id: unknown;
  for (const event of [...parser.push(body), ...parser.end()]) {
    const json = jsonOf(event.data);
    events.push({ ...event, json });
    if (json === null) continue;
    id ??= json.id;
    model ??= json.model;
    const piece = firstChoiceText(endpoint, json);
    if (piece !== null) text += piece;
    const spoken = endpoint === 'chat' ? firstChoiceTranscript(json) : null;
    if (spoken !== null) transcript = (transcript ?? '') + spoken;
  }
  const message = transcript === null ? { role: 'assistant', content: text } : { role: 'assistant', content: text, audio: { transcript } };
  const choice = endpoint === 'chat' ? { index: 0, message } : { index: 0, text };
  return { events, text, answer: { id, model, object: endpoint === 'chat' ? 'chat.completion' : 'text_completion', choices: [choice] } };
}

/**
 * The held stream with the first choice's text replaced by `text`, each event written as its type and
 * data (comments and `id:`/`retry:` fields, which carry no answer, are not kept).
 */
export function rewrittenStream(endpoint: EndpointKind, held: HeldStream, text: string): Buffer {
  let placed = false;
  let out = '';
  for (const event of held.events) {
    const json = event.json;
    if (json === null || firstChoiceText(endpoint, json) === null) {
      out += eventText(event.event, event.data);
      continue;
    }
    out += eventText(event.event, JSON.stringify(withFirstChoiceText(endpoint, json, placed ? '' : text)));
    placed = true;
  }
  return Buffer.from(out);
}

/** One event as SSE text: its type unless the default, and a `data:` line per line of its data. */
function eventText(type: string, data: string): string {
  const head = type === 'message' ? '' : `event: ${type}\n`;
  return `${head}data: ${data.split('\n').join('\ndata: ')}\n\n`;
}

/** A stream that is one error event: what an SSE client reads as a failed stream (the vendor SDKs throw it). */
export function errorEventStream(body: unknown): Buffer {
  return Buffer.from(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
}

function jsonOf(data: string): Record<string, unknown> | null {
  if (data === '' || data === '[DONE]') return null;
  try {
    const parsed: unknown = parseJson(data);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function firstChoice(data: Record<string, unknown>): Record<string, unknown> | null {
  if (!Array.isArray(data.choices)) return null;
  const choice = data.choices.find((c) => typeof c === 'object' && c !== null && ((c as { index?: unknown }).index ?? 0) === 0);
  return (choice as Record<string, unknown> | undefined) ?? null;
}

function firstChoiceText(endpoint: EndpointKind, data: Record<string, unknown>): string | null {
  const choice = firstChoice(data);
  if (choice === null) return null;
  if (endpoint === 'completions') return typeof choice.text === 'string' ? choice.text : null;
  const delta = choice.delta as { content?: unknown } | undefined;
  return typeof delta?.content === 'string' ? delta.content : null;
}

/** A piece of a spoken answer's transcript (`delta.audio.transcript`), or null. */
function firstChoiceTranscript(data: Record<string, unknown>): string | null {
  const audio = (firstChoice(data)?.delta as { audio?: { transcript?: unknown } | null } | undefined)?.audio;
  return typeof audio?.transcript === 'string' ? audio.transcript : null;
}

function withFirstChoiceText(endpoint: EndpointKind, data: Record<string, unknown>, text: string): Record<string, unknown> {
  const choices = (data.choices as Array<Record<string, unknown>>).map((choice) => {
    if ((choice.index ?? 0) !== 0) return choice;
    return endpoint === 'completions' ? { ...choice, text } : { ...choice, delta: { ...(choice.delta as object), content: text } };
  });
  return { ...data, choices };
}
