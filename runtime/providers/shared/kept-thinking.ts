// Signed thinking through a chat translation, whatever the family's shapes (the messages API's
// thinking blocks: anthropic/kept-thinking.ts; converse's reasoning blocks: cloudc/kept-thinking.ts).
// With thinking on, an answer that calls tools begins with the model's signed (or redacted) thinking,
// and the turn that sends the tools' results must give that assistant turn back with it, unchanged:
// Claude refuses it otherwise ("a final assistant message must start with a thinking block"). A chat
// message has no place for signed blocks (its reasoning_content is their text alone), so a chat
// client could never send them back, and every tool-use turn with thinking failed. The translation
// hands them over (ProviderCall.keepThinking), the gateway keeps them by the tool calls they led to
// (runtime/inference/kept-thinking.ts), and the translation puts them back before those calls when
// the client's assistant message makes the same calls (ProviderCall.keptThinking).
import type { KeptThinking } from '../types.ts';

/** Reads an answer's blocks in order: each signed thinking block, as the family gave it, and each tool call. */
export class ThinkingCollector {
  readonly #ids: string[] = [];
  readonly #withCall: unknown[][] = [];
  #pending: unknown[] = [];

  /** A signed or redacted thinking block, in the family's own shape. */
  thinking(block: unknown): void {
    this.#pending.push(block);
  }

  /** A tool call, by its id: the thinking read since the last one led to it. */
  toolCall(id: string): void {
    this.#ids.push(id);
    this.#withCall.push(this.#pending);
    this.#pending = [];
  }

  /** What to keep: null when the answer called no tool or had no signed thinking before one. */
  kept(): KeptThinking | null {
    if (this.#ids.length === 0 || this.#withCall.every((group) => group.length === 0)) return null;
    return { toolCallIds: [...this.#ids], withCall: this.#withCall };
  }
}

/**
 * An assistant turn's blocks with the thinking kept for its tool calls (`idOf` names a block's call,
 * null for any other block) put back before each call, the first call's before the turn's text too,
 * as the model wrote them; the blocks as they were when nothing is kept for them, or when the turn
 * makes other calls than the answer did.
 */
export function withKeptThinking<T>(content: T[], kept: ReadonlyMap<string, KeptThinking> | null, idOf: (block: T) => string | null): T[] {
  if (kept === null) return content;
  const ids = content.map(idOf).filter((id) => id !== null);
  const entry = ids.length === 0 ? undefined : kept.get(ids[0]!);
  if (entry === undefined || entry.toolCallIds.length !== ids.length || entry.toolCallIds.some((id, i) => ids[i] !== id)) return content;
  const out = [...(entry.withCall[0] as T[])];
  let call = 0;
  for (const block of content) {
    if (idOf(block) !== null) {
      if (call > 0) out.push(...(entry.withCall[call] as T[]));
      call++;
    }
    out.push(block);
  }
  return out;
}

/** Whether a chat body asks for Claude's thinking: a `thinking` object whose type is not `disabled`. */
export function asksThinking(body: Record<string, unknown>): boolean {
  const thinking = body.thinking;
  return thinking !== null && typeof thinking === 'object' && (thinking as { type?: unknown }).type !== 'disabled';
}
