// One stored answer of the response cache, and its byte form for a shared backend (framed.ts): a
// JSON head (status, content headers, when and by which target it was answered, the thinking its
// translation kept), then the body bytes
// exactly as the client received them (JSON, or the whole SSE stream with its [DONE]).
import { frame, unframe } from './framed.ts';
import type { KeptThinking } from '../../providers/types.ts';
import { isKeptThinking } from '../turn-memory/kept-thinking-memory.ts';

export interface CachedAnswer {
  status: number;
  /** The answer's content headers (content-type, …), lower-cased; never content-length (recomputed) or a gateway header. */
  headers: Record<string, string>;
  body: Buffer;
  /** Unix milliseconds when the provider's answer completed. */
  storedAt: number;
  /** The target that answered (x-gateway-last-used-option-index of a hit) and its provider. */
  leafPath: string;
  provider: string;
  /** A stream without a usage chunk: the usage its provider reported outside it (the log's); absent when none. */
  usage?: unknown;
  /** The signed thinking its translation handed over with its tool calls, kept again for whoever a hit serves (cache-stage.ts); absent when none. */
  kept?: KeptThinking[];
}

interface Head {
  s: number;
  h: Record<string, string>;
  t: number;
  l: string;
  p: string;
  /** Absent in entries stored before it, and when there is none. */
  u?: unknown;
  /** Kept thinking; absent in entries stored before it, and when there is none. */
  k?: unknown;
}

export function encodeAnswer(answer: CachedAnswer): Buffer {
  const head: Head = { s: answer.status, h: answer.headers, t: answer.storedAt, l: answer.leafPath, p: answer.provider };
  if (answer.usage !== undefined) head.u = answer.usage;
  if (answer.kept !== undefined) head.k = answer.kept;
  return frame(head, answer.body);
}

/** Null when the bytes are not an encoded answer (a foreign or damaged value is a miss, never an error). */
export function decodeAnswer(value: Buffer): CachedAnswer | null {
  const framed = unframe(value);
  if (framed === null) return null;
  const head = framed.head as Head;
  if (typeof head !== 'object' || head === null || !Number.isInteger(head.s) || typeof head.h !== 'object' || head.h === null || typeof head.t !== 'number') return null;
  const answer: CachedAnswer = { status: head.s, headers: head.h, body: framed.bytes, storedAt: head.t, leafPath: String(head.l ?? ''), provider: String(head.p ?? '') };
  if (head.u !== undefined && head.u !== null) answer.usage = head.u;
  // A value of another shape (a foreign writer) is left out: the answer itself is still good.
  if (Array.isArray(head.k) && head.k.length > 0 && head.k.every(isKeptThinking)) answer.kept = head.k;
  return answer;
}

/**
 * Bytes an answer holds in a backend: the body, its head's text and a rough allowance for the objects
 * around them. The head is counted, not assumed: its content headers come from the provider, which a
 * config or a client's custom host may name, and a small body under 16 KB of `content-*` headers was
 * counted as 256 bytes (the in-memory cache then held ~30 times its bound).
 */
export function answerBytes(answer: CachedAnswer): number {
  let bytes = answer.body.length + 256 + answer.leafPath.length + answer.provider.length + (answer.usage === undefined ? 0 : 256) + (answer.kept === undefined ? 0 : JSON.stringify(answer.kept).length);
  for (const name in answer.headers) bytes += name.length + answer.headers[name]!.length;
  return bytes;
}
