// A streamed answer held whole so output checks can judge it before the client sees a byte
// (ARCHITECTURE §5: output checks that can deny, or rewrite, hold the stream). Its answer has a choice
// for each choice the stream carried, its deltas joined (a spoken answer's transcript pieces in its
// `audio`, as a JSON answer carries them; its reasoning and refusal pieces joined likewise); a
// choice's text that a transformer rewrote, member by member, goes back in the first event that
// carried any of that member, its later ones carrying none, so the stream keeps its events, finish
// reasons and usage, and the choice's log probabilities (the tokens it replaced) are dropped. The
// events are read by the providers' SSE parser: any line ending the standard allows (a stream that
// ended its lines with CR alone must not reach the checks as no text at all), comments skipped,
// multi-line data joined.
import type { EndpointKind } from '../../providers/types.ts';
import { type SseEvent, SseParser } from '../../providers/shared/sse.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';
import { choiceText } from './hook-text.ts';
import { spokenTranscript, WRITTEN_TEXT_MEMBERS } from '../../providers/shared/chat.ts';
import { isJsonObject } from '../../core/json-object.ts';

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
  const members = textMembers(endpoint);
  // Each choice's text, member by member (a chat's content and reasoning), its pieces joined.
  const texts = new Map<number, Map<string, string>>([[0, new Map()]]);
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
      const joined = texts.get(index) ?? new Map<string, string>();
      texts.set(index, joined);
      const holder = pieceHolder(endpoint, choice);
      if (holder === null) continue;
      for (const member of members) if (typeof holder[member] === 'string') joined.set(member, (joined.get(member) ?? '') + holder[member]);
      const spoken = endpoint === 'chat' ? spokenTranscript(holder) : null;
      if (spoken !== null) transcripts.set(index, (transcripts.get(index) ?? '') + spoken);
    }
  }
  if (endpoint === 'audio') return { events, answer: transcriptAnswer(events) };
  const choices = [...texts.keys()].sort((a, b) => a - b).map((index) => {
    const joined = texts.get(index)!;
    if (endpoint !== 'chat') return { index, text: joined.get('text') ?? '' };
    const message: Record<string, unknown> = { role: 'assistant', content: joined.get('content') ?? '' };
    for (const member of WRITTEN_TEXT_MEMBERS) if (joined.has(member)) message[member] = joined.get(member);
    const transcript = transcripts.get(index);
    if (transcript !== undefined) message.audio = { transcript };
    return { index, message };
  });
  return { events, answer: { id, model, object: endpoint === 'chat' ? 'chat.completion' : 'text_completion', choices } };
}

/**
 * The held stream with each choice whose text `judged` (the held answer as the checks left it)
 * changed carrying its new text, member by member (content, reasoning, refusal), in the first event
 * that carried that member of that choice, and its log probabilities dropped; each event written as
 * its type and data (comments and `id:`/`retry:` fields, which carry no answer, are not kept).
 */
export function rewrittenStream(endpoint: EndpointKind, held: HeldStream, judged: unknown): Buffer {
  if (endpoint === 'audio') return rewrittenTranscript(held, judged);
  const members = textMembers(endpoint);
  const replaced = new Map<number, Map<string, string>>();
  const before = held.answer.choices as unknown[];
  const after = (judged as { choices?: unknown } | null)?.choices;
  if (Array.isArray(after)) {
    after.forEach((choice, at) => {
      // A webhook's answer may hold anything: only choices that are objects carry text.
      if (!isJsonObject(choice)) return;
      const changed = new Map<string, string>();
      for (const member of members) {
        const text = memberText(endpoint, choice, member);
        if (text !== memberText(endpoint, before[at], member)) changed.set(member, text);
      }
      if (changed.size > 0) replaced.set(choiceIndex(choice), changed);
    });
  }
  const placed = new Set<string>();
  let out = '';
  for (const event of held.events) {
    const json = event.json;
    let changed = false;
    const choices = (json !== null && Array.isArray(json.choices) ? (json.choices as unknown[]) : []).map((choice) => {
      if (!isJsonObject(choice)) return choice;
      const index = choiceIndex(choice);
      const texts = replaced.get(index);
      if (texts === undefined) return choice;
      const holder = pieceHolder(endpoint, choice);
      let pieces: Record<string, unknown> | null = null;
      for (const [member, text] of texts) {
        if (holder === null || typeof holder[member] !== 'string') continue;
        const first = !placed.has(`${index}:${member}`);
        placed.add(`${index}:${member}`);
        pieces ??= { ...holder };
        pieces[member] = first ? text : '';
      }
      // The choice's log probabilities spell the tokens it wrote, the replaced ones among them.
      const dropLogprobs = choice.logprobs !== undefined && choice.logprobs !== null;
      if (pieces === null && !dropLogprobs) return choice;
      changed = true;
      const next: Record<string, unknown> = pieces === null ? { ...choice } : endpoint === 'chat' ? { ...choice, delta: pieces } : pieces;
      if (dropLogprobs) next.logprobs = null;
      return next;
    });
    out += eventText(event.event, changed ? JSON.stringify({ ...json, choices }) : event.data);
  }
  return Buffer.from(out);
}

/** A streamed transcription's event types: its text in pieces, the whole text at the end, a diarized segment. */
const TRANSCRIPT_DELTA = 'transcript.text.delta';
const TRANSCRIPT_DONE = 'transcript.text.done';
const TRANSCRIPT_SEGMENT = 'transcript.text.segment';

/** A streamed transcription as the JSON answer it stands for: the whole text (the pieces joined when no end event came), and its segments' texts when it had any. */
function transcriptAnswer(events: readonly HeldEvent[]): Record<string, unknown> {
  let pieces = '';
  let whole: string | null = null;
  const segments: Array<{ text: string }> = [];
  for (const { json } of events) {
    if (json === null) continue;
    if (json.type === TRANSCRIPT_DELTA && typeof json.delta === 'string') pieces += json.delta;
    else if (json.type === TRANSCRIPT_DONE && typeof json.text === 'string') whole = json.text;
    else if (json.type === TRANSCRIPT_SEGMENT && typeof json.text === 'string') segments.push({ text: json.text });
  }
  return { text: whole ?? pieces, ...(segments.length > 0 ? { segments } : {}) };
}

/**
 * A held transcript stream with the text `judged` gives: the first piece carries it whole and the
 * later ones nothing, the end event carries it, each segment its own (an empty one where the judged
 * answer has none), and no event keeps its log probabilities (they spell what was replaced).
 */
function rewrittenTranscript(held: HeldStream, judged: unknown): Buffer {
  const text = isJsonObject(judged) && typeof judged.text === 'string' ? judged.text : '';
  const segments = isJsonObject(judged) && Array.isArray(judged.segments) ? judged.segments : [];
  let placed = false;
  let segment = 0;
  let out = '';
  for (const event of held.events) {
    const json = event.json;
    let next: Record<string, unknown> | null = null;
    if (json?.type === TRANSCRIPT_DELTA && typeof json.delta === 'string') {
      next = { ...json, delta: placed ? '' : text };
      placed = true;
    } else if (json?.type === TRANSCRIPT_DONE && typeof json.text === 'string') next = { ...json, text };
    else if (json?.type === TRANSCRIPT_SEGMENT && typeof json.text === 'string') {
      const judgedSegment: unknown = segments[segment++];
      next = { ...json, text: isJsonObject(judgedSegment) && typeof judgedSegment.text === 'string' ? judgedSegment.text : '' };
    }
    if (next !== null && next.logprobs !== undefined) delete next.logprobs;
    out += eventText(event.event, next === null ? event.data : JSON.stringify(next));
  }
  return Buffer.from(out);
}

/** One event as SSE text: its type unless the default, and a `data:` line per line of its data. */
export function eventText(type: string, data: string): string {
  const head = type === 'message' ? '' : `event: ${type}\n`;
  return `${head}data: ${data.split('\n').join('\ndata: ')}\n\n`;
}

/** A stream that is one error event: what an SSE client reads as a failed stream (the vendor SDKs throw it). */
export function errorEventStream(body: unknown): Buffer {
  return Buffer.from(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
}

/** An event's data as the JSON object it carries, or null (`[DONE]`, not an object, not JSON). */
export function jsonOf(data: string): Record<string, unknown> | null {
  if (data === '' || data === '[DONE]') return null;
  try {
    const parsed: unknown = parseJson(data);
    return isJsonObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

function choicesOf(data: Record<string, unknown>): Array<Record<string, unknown>> {
  return Array.isArray(data.choices) ? data.choices.filter(isJsonObject) : [];
}

function choiceIndex(choice: Record<string, unknown>): number {
  return typeof choice.index === 'number' ? choice.index : 0;
}

/** Members of a streamed choice that carry the model's text, piece by piece. */
function textMembers(endpoint: EndpointKind): readonly string[] {
  return endpoint === 'completions' ? COMPLETION_MEMBERS : CHAT_MEMBERS;
}
const CHAT_MEMBERS: readonly string[] = ['content', ...WRITTEN_TEXT_MEMBERS];
const COMPLETION_MEMBERS: readonly string[] = ['text'];

/** What holds a streamed choice's text members: a chat chunk's delta, a completion chunk's choice. */
function pieceHolder(endpoint: EndpointKind, choice: Record<string, unknown>): Record<string, unknown> | null {
  if (endpoint === 'completions') return choice;
  return isJsonObject(choice.delta) ? choice.delta : null;
}

/** A member's text in a choice of a whole answer ('' when it has none): a spoken answer's content is its transcript. */
function memberText(endpoint: EndpointKind, choice: unknown, member: string): string {
  if (member === 'content' || member === 'text') return choiceText(endpoint, choice);
  const message = isJsonObject(choice) ? choice.message : undefined;
  return isJsonObject(message) && typeof message[member] === 'string' ? message[member] : '';
}
