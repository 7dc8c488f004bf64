// Signed thinking through a chat translation, whatever the family's shapes (the messages API's
// thinking blocks: anthropic/kept-thinking.ts; converse's reasoning blocks: cloudc/kept-thinking.ts).
// With thinking on, an answer that calls tools begins with the model's signed (or redacted) thinking,
// and the turn that sends the tools' results must give that assistant turn back with it, unchanged:
// Claude refuses it otherwise ("a final assistant message must start with a thinking block"). A chat
// message has no place for signed blocks (its reasoning_content is their text alone), so a chat
// client could never send them back, and every tool-use turn with thinking failed. The translation
// hands them over (ProviderCall.keepThinking), the gateway keeps them by the tool calls they led to
// (runtime/pipeline/turn-memory/kept-thinking-memory.ts), and the translation puts them back before those calls when
// the client's assistant message makes the same calls (ProviderCall.keptThinking).
import type { KeptThinking } from '../types.ts';
import { asksEffort } from './asked-thinking.ts';

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

/** A family's reader of one of an answer's blocks (a JSON answer's, or a stream's once complete) into a collector. */
export type BlockReader = (collector: ThinkingCollector, block: Record<string, any>) => void;

/** What an answer's blocks, in order, hand over to be kept (entries that are not objects passed over). */
export function keptOf(blocks: Iterable<unknown>, read: BlockReader): KeptThinking | null {
  const collector = new ThinkingCollector();
  for (const block of blocks) if (block !== null && typeof block === 'object' && !Array.isArray(block)) read(collector, block as Record<string, any>);
  return collector.kept();
}

/** A stream's blocks, held by their index as their events come, in the answer's order. */
export function inIndexOrder<T>(blocks: ReadonlyMap<number, T>): T[] {
  return [...blocks.keys()].sort((a, b) => a - b).map((index) => blocks.get(index)!);
}

/** Hands what `kept` finds to `keep`: only when someone keeps thinking (`kept` is not even run otherwise) and it found some. */
export function handOver(keep: ((kept: KeptThinking) => void) | null | undefined, kept: () => KeptThinking | null): void {
  if (keep === null || keep === undefined) return;
  const found = kept();
  if (found !== null) keep(found);
}

/** The name a chat body's mapping is kept under (shared/mapped-body.ts): another when kept thinking goes into it. */
export function mappingWithKept(name: string, kept: ReadonlyMap<string, KeptThinking> | null): string {
  return kept === null ? name : `${name}+kept`;
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

/** Whether a chat body asks for Claude's thinking: a `thinking` object whose type is not `disabled`, or an effort (asked-thinking.ts). */
export function asksThinking(body: Record<string, unknown>): boolean {
  const thinking = body.thinking;
  return (thinking !== null && typeof thinking === 'object' && (thinking as { type?: unknown }).type !== 'disabled') || asksEffort(body);
}
