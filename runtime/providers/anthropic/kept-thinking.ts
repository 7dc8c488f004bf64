// The messages API's signed thinking through the chat translation. With thinking on, an answer that
// calls tools begins with the model's thinking blocks (each signed, or redacted), and the turn that
// sends the tools' results must give that assistant turn back with them, unchanged: the API refuses
// it otherwise ("a final assistant message must start with a thinking block"). A chat message has no
// place for signed blocks (its reasoning_content is their text alone), so a chat client could never
// send them back, and every tool-use turn with thinking failed. The translation hands them to the
// gateway (ProviderCall.keepThinking), which keeps them by the tool calls they led to
// (runtime/inference/kept-thinking.ts), and puts them back before those calls when the client's
// assistant message makes the same calls.
import type { KeptThinking } from '../types.ts';
import type { MessagesBlock } from './request.ts';

type Block = Record<string, unknown>;

/** A thinking block with its signature, or a redacted one, as the API gave it; null for any other block. */
function signedThinking(block: Block): Block | null {
  if (block.type === 'thinking' && typeof block.thinking === 'string' && typeof block.signature === 'string' && block.signature !== '') return { type: 'thinking', thinking: block.thinking, signature: block.signature };
  if (block.type === 'redacted_thinking' && typeof block.data === 'string') return { type: 'redacted_thinking', data: block.data };
  return null;
}

/** Reads an answer's blocks in order (a JSON answer's content, or a stream's as its events open and fill them). */
export class ThinkingCollector {
  readonly #ids: string[] = [];
  readonly #before: Block[][] = [];
  #pending: Block[] = [];
  #any = false;

  /** A whole block (a JSON answer's, or a stream's once it is complete). */
  block(block: Block): void {
    if (block.type === 'tool_use' && typeof block.id === 'string') {
      this.#ids.push(block.id);
      this.#before.push(this.#pending);
      this.#pending = [];
      return;
    }
    const signed = signedThinking(block);
    if (signed === null) return;
    this.#pending.push(signed);
    this.#any = true;
  }

  /** What to keep: null when the answer called no tool or had no signed thinking before one. */
  kept(): KeptThinking | null {
    if (!this.#any || this.#ids.length === 0 || this.#before.every((group) => group.length === 0)) return null;
    return { toolCallIds: [...this.#ids], before: this.#before };
  }
}

/** The kept thinking of a JSON answer's content. */
export function keptThinkingOf(content: unknown): KeptThinking | null {
  if (!Array.isArray(content)) return null;
  const collector = new ThinkingCollector();
  for (const block of content) if (block !== null && typeof block === 'object' && !Array.isArray(block)) collector.block(block as Block);
  return collector.kept();
}

/**
 * An assistant turn's blocks with the thinking kept for its tool calls put back before each call
 * (the first call's before the turn's text too, as the model wrote them); the blocks as they were when
 * nothing is kept for them, or when the message makes other calls than the answer did.
 */
export function withKeptThinking(content: MessagesBlock[], kept: ReadonlyMap<string, KeptThinking> | null): MessagesBlock[] {
  if (kept === null) return content;
  const calls = content.filter((block) => block.type === 'tool_use') as Array<MessagesBlock & { id: string }>;
  const entry = calls.length === 0 ? undefined : kept.get(calls[0]!.id);
  if (entry === undefined || entry.toolCallIds.length !== calls.length || entry.toolCallIds.some((id, i) => calls[i]!.id !== id)) return content;
  const out: MessagesBlock[] = [...(entry.before[0] as MessagesBlock[])];
  let call = 0;
  for (const block of content) {
    if (block.type === 'tool_use' && call > 0) out.push(...(entry.before[call] as MessagesBlock[]));
    if (block.type === 'tool_use') call++;
    out.push(block);
  }
  return out;
}
