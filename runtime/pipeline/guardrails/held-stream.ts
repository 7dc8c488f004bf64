// A streamed answer held whole so output checks can judge it before the client sees a byte
// (ARCHITECTURE §5: output checks that can deny, or rewrite, hold the stream). Its answer has a choice
// for each choice the stream carried, its deltas joined (a spoken answer's transcript pieces in its
// `audio`, as a JSON answer carries them); a choice whose text a transformer rewrote goes back as the
// content of the first event that carried any of that choice's text, its later ones carrying none,
// so the stream keeps its events, finish reasons and usage. The
// events are read by the providers' SSE parser: any line ending the standard allows (a stream that
// ended its lines with CR alone must not reach the checks as no text at all), comments skipped,
// multi-line data joined.
import type { EndpointKind } from '../../providers/types.ts';
import { type SseEvent, SseParser } from '../../providers/shared/sse.ts';
import { parseJson } from '../../core/json-parse.ts';
import { choiceText } from './hook-text.ts';
import { spokenTranscript } from '../../providers/shared/chat.ts';

interface HeldEvent extends SseEvent {
  /** The `data:` JSON, when the event carries an object (not `[DONE]`). */
  json: Record<string, unknown> | null;
}

export interface HeldStream {
  events: HeldEvent[];
  /** The answer as one JSON body, a choice for each choice of the stream (choice 0 at least), for the checks. */
  answer: Record<string, unknown>;
}

export function holdStream(endpoint: EndpointKind, body: Buffer): HeldStream {
  // No event can be longer than the body that holds it: the parser's bound never cuts one here.
  const parser = new SseParser(Math.max(1, body.length));
  const events: HeldEvent[] = [];
  const texts = new Map<number, string>([[0, '']]);
  const transcripts = new Map<number, string>();
  let model: unknown;
  let id: unknown;
  for (const event of [...parser.push(body), ...parser.end()]) {
    const json = jsonOf(event.data);
    events.push({ ...event, json });
    if (json === null) continue;
    id ??= json.id;
    model ??= json.model;
    for (const choice of choicesOf(json)) {
      const index = choiceIndex(choice);
      const piece = deltaText(endpoint, choice);
      if (piece !== null || !texts.has(index)) texts.set(index, (texts.get(index) ?? '') + (piece ?? ''));
      const spoken = endpoint === 'chat' ? spokenTranscript(choice.delta) : null;
      if (spoken !== null) transcripts.set(index, (transcripts.get(index) ?? '') + spoken);
    }
  }
  const choices = [...texts.keys()].sort((a, b) => a - b).map((index) => {
    const text = texts.get(index)!;
    if (endpoint !== 'chat') return { index, text };
    const transcript = transcripts.get(index);
    return { index, message: transcript === undefined ? { role: 'assistant', content: text } : { role: 'assistant', content: text, audio: { transcript } } };
  });
  return { events, answer: { id, model, object: endpoint === 'chat' ? 'chat.completion' : 'text_completion', choices } };
}

/**
 * The held stream with each choice whose text `judged` (the held answer as the checks left it)
 * changed carrying its new text, each event written as its type and data (comments and
 * `id:`/`retry:` fields, which carry no answer, are not kept).
 */
export function rewrittenStream(endpoint: EndpointKind, held: HeldStream, judged: unknown): Buffer {
  const replaced = new Map<number, string>();
  const before = held.answer.choices as unknown[];
  const after = (judged as { choices?: unknown } | null)?.choices;
  if (Array.isArray(after)) {
    after.forEach((choice, at) => {
      // A webhook's answer may hold anything: only choices that are objects carry text.
      if (typeof choice !== 'object' || choice === null || Array.isArray(choice)) return;
      const text = choiceText(endpoint, choice);
      if (text !== choiceText(endpoint, before[at])) replaced.set(choiceIndex(choice as Record<string, unknown>), text);
    });
  }
  const placed = new Set<number>();
  let out = '';
  for (const event of held.events) {
    const json = event.json;
    let changed = false;
    const choices = (json !== null && Array.isArray(json.choices) ? (json.choices as unknown[]) : []).map((choice) => {
      if (typeof choice !== 'object' || choice === null || Array.isArray(choice)) return choice;
      const index = choiceIndex(choice as Record<string, unknown>);
      const text = replaced.get(index);
      if (text === undefined || deltaText(endpoint, choice as Record<string, unknown>) === null) return choice;
      changed = true;
      const first = !placed.has(index);
      placed.add(index);
      return withDeltaText(endpoint, choice as Record<string, unknown>, first ? text : '');
    });
    out += eventText(event.event, changed ? JSON.stringify({ ...json, choices }) : event.data);
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

function choicesOf(data: Record<string, unknown>): Array<Record<string, unknown>> {
  return Array.isArray(data.choices) ? data.choices.filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null && !Array.isArray(c)) : [];
}

function choiceIndex(choice: Record<string, unknown>): number {
  return typeof choice.index === 'number' ? choice.index : 0;
}

function deltaText(endpoint: EndpointKind, choice: Record<string, unknown>): string | null {
  if (endpoint === 'completions') return typeof choice.text === 'string' ? choice.text : null;
  const delta = choice.delta as { content?: unknown } | undefined;
  return typeof delta?.content === 'string' ? delta.content : null;
}

function withDeltaText(endpoint: EndpointKind, choice: Record<string, unknown>, text: string): Record<string, unknown> {
  return endpoint === 'completions' ? { ...choice, text } : { ...choice, delta: { ...(choice.delta as object), content: text } };
}
