// The messages API's signed thinking through the chat translation (shared/kept-thinking.ts): its
// thinking blocks (with their signature) and redacted_thinking blocks before each tool_use.
import { keptOf, type ThinkingCollector, withKeptThinking } from '../shared/kept-thinking.ts';
import type { KeptThinking } from '../types.ts';
import type { MessagesBlock } from './request.ts';

type Block = Record<string, unknown>;

/** Reads one of an answer's blocks (a JSON answer's, or a stream's once complete) into `collector`. */
export function collectMessagesBlock(collector: ThinkingCollector, block: Block): void {
  if (block.type === 'tool_use' && typeof block.id === 'string') collector.toolCall(block.id);
  else if (block.type === 'thinking' && typeof block.thinking === 'string' && typeof block.signature === 'string' && block.signature !== '') collector.thinking({ type: 'thinking', thinking: block.thinking, signature: block.signature });
  else if (block.type === 'redacted_thinking' && typeof block.data === 'string') collector.thinking({ type: 'redacted_thinking', data: block.data });
}

/** The kept thinking of a JSON answer's content. */
export function keptThinkingOf(content: unknown): KeptThinking | null {
  return Array.isArray(content) ? keptOf(content, collectMessagesBlock) : null;
}

/** An assistant turn's blocks with the thinking kept for its tool_use blocks put back. */
export function withKeptMessagesThinking(content: MessagesBlock[], kept: ReadonlyMap<string, KeptThinking> | null): MessagesBlock[] {
  return withKeptThinking(content, kept, (block) => (block.type === 'tool_use' ? block.id : null));
}
