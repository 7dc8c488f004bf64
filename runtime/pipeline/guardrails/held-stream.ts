// A streamed answer held whole so output checks can judge it before the client sees a byte
// (ARCHITECTURE §5: output checks that can deny, or rewrite, hold the stream). Its text is the first
// choice's deltas joined; a rewritten text goes back as the content of the first event that carried
// any, the later ones carrying none, so the stream keeps its events, ids, finish reason and usage.
import type { EndpointKind } from '../../providers/types.ts';

interface HeldEvent {
  /** The event's lines as received, when it is passed on unchanged. */
  raw: string;
  /** The parsed `data:` JSON, when the event carries one (not `[DONE]`). */
  data: Record<string, unknown> | null;
}

export interface HeldStream {
  events: HeldEvent[];
  /** The first choice's text, all deltas joined. */
  text: string;
  /** The answer as one JSON body, for checks that read the whole answer (webhook, log). */
  answer: Record<string, unknown>;
}

export function holdStream(endpoint: EndpointKind, body: Buffer): HeldStream {
  const events: HeldEvent[] = [];
  let text = '';
  let model: unknown;
  let id: unknown;
  for (const raw of body.toString('utf8').split(/\r?\n\r?\n/)) {
    if (raw.trim() === '') continue;
    const data = dataOf(raw);
    events.push({ raw, data });
    if (data === null) continue;
    id ??= data.id;
    model ??= data.model;
    const piece = firstChoiceText(endpoint, data);
    if (piece !== null) text += piece;
  }
  const choice = endpoint === 'chat' ? { index: 0, message: { role: 'assistant', content: text } } : { index: 0, text };
  return { events, text, answer: { id, model, object: endpoint === 'chat' ? 'chat.completion' : 'text_completion', choices: [choice] } };
}

/** The held stream's bytes with the first choice's text replaced by `text`. */
export function rewrittenStream(endpoint: EndpointKind, held: HeldStream, text: string): Buffer {
  let placed = false;
  const out: string[] = [];
  for (const event of held.events) {
    const data = event.data;
    if (data === null || firstChoiceText(endpoint, data) === null) {
      out.push(event.raw);
      continue;
    }
    out.push(`data: ${JSON.stringify(withFirstChoiceText(endpoint, data, placed ? '' : text))}`);
    placed = true;
  }
  return Buffer.from(`${out.join('\n\n')}\n\n`);
}

/** A stream that is one error event: what an SSE client reads as a failed stream (the vendor SDKs throw it). */
export function errorEventStream(body: unknown): Buffer {
  return Buffer.from(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
}

function dataOf(raw: string): Record<string, unknown> | null {
  let data = '';
  for (const line of raw.split(/\r?\n/)) {
    if (line.startsWith('data:')) data += line.slice(line.startsWith('data: ') ? 6 : 5);
  }
  if (data === '' || data === '[DONE]') return null;
  try {
    const parsed: unknown = JSON.parse(data);
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

function withFirstChoiceText(endpoint: EndpointKind, data: Record<string, unknown>, text: string): Record<string, unknown> {
  const choices = (data.choices as Array<Record<string, unknown>>).map((choice) => {
    if ((choice.index ?? 0) !== 0) return choice;
    return endpoint === 'completions' ? { ...choice, text } : { ...choice, delta: { ...(choice.delta as object), content: text } };
  });
  return { ...data, choices };
}
