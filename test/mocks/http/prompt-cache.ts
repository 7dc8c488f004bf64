// A provider's prompt cache as the messages API and converse keep one: the prompt up to each
// breakpoint the request marks is remembered for the breakpoint's TTL (refreshed on use). A request
// reads the longest remembered prefix it marks and writes the rest up to its last breakpoint; the
// mocks report both in their usage as the services do. Tokens are the mocks' words.
import { createHash } from 'node:crypto';

/** One piece of a prompt, in the order the service caches (tools, system, messages). */
export interface PromptItem {
  /** The piece as sent, without its breakpoint. */
  text: string;
  tokens: number;
  /** A breakpoint after this piece, and its TTL in seconds. */
  breakpointTtl?: number;
}

export interface PromptCacheUse {
  read: number;
  write: number;
  /** Of `write`, the tokens written for an hour (those up to a breakpoint with the 1-hour TTL, past the one before it). */
  write1h: number;
  breakpoints: number;
}

export class MockPromptCache {
  readonly #expires = new Map<string, number>();

  use(items: readonly PromptItem[], now = Date.now()): PromptCacheUse {
    const hash = createHash('sha256');
    const marks: { digest: string; tokens: number; ttl: number }[] = [];
    let tokens = 0;
    for (const item of items) {
      hash.update(item.text).update('\u0000');
      tokens += item.tokens;
      if (item.breakpointTtl !== undefined) marks.push({ digest: hash.copy().digest('hex'), tokens, ttl: item.breakpointTtl });
    }
    let read = 0;
    for (const mark of marks) if ((this.#expires.get(mark.digest) ?? 0) > now) read = mark.tokens;
    const last = marks.at(-1);
    const write = last === undefined ? 0 : last.tokens - read;
    let write1h = 0;
    let before = read;
    for (const mark of marks) {
      if (mark.tokens > before && mark.ttl === ttlSeconds('1h')) write1h += mark.tokens - before;
      before = Math.max(before, mark.tokens);
    }
    for (const mark of marks) this.#expires.set(mark.digest, now + mark.ttl * 1000);
    return { read, write, write1h, breakpoints: marks.length };
  }
}

/** Seconds a breakpoint keeps its prefix: 5 minutes, or an hour when asked. */
export function ttlSeconds(ttl: unknown): number {
  return ttl === '1h' ? 3600 : 300;
}
