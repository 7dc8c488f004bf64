// Converse's signed reasoning through the chat translation (shared/kept-thinking.ts): a Claude
// model's reasoning blocks (`reasoningContent.reasoningText` with its signature, or
// `reasoningContent.redactedContent`) before each toolUse block.
import { keptOf, type ThinkingCollector, withKeptThinking } from '../shared/kept-thinking.ts';
import type { KeptThinking } from '../types.ts';
import type { ConverseBlock } from './request.ts';

type Block = Record<string, any>;

/** Reads one of an answer's content blocks (a JSON answer's, or a stream's once complete) into `collector`. */
export function collectConverseBlock(collector: ThinkingCollector, block: Block): void {
  const use = block.toolUse;
  if (use !== null && typeof use === 'object' && typeof use.toolUseId === 'string') {
    collector.toolCall(use.toolUseId);
    return;
  }
  const reasoning = block.reasoningContent;
  if (reasoning === null || typeof reasoning !== 'object') return;
  const text = reasoning.reasoningText;
  if (text !== null && typeof text === 'object' && typeof text.text === 'string' && typeof text.signature === 'string' && text.signature !== '') {
    collector.thinking({ reasoningContent: { reasoningText: { text: text.text, signature: text.signature } } });
  } else if (typeof reasoning.redactedContent === 'string') {
    collector.thinking({ reasoningContent: { redactedContent: reasoning.redactedContent } });
  }
}

/** The kept thinking of a JSON answer's content (`output.message.content`). */
export function keptConverseThinkingOf(content: unknown): KeptThinking | null {
  return Array.isArray(content) ? keptOf(content, collectConverseBlock) : null;
}

/** An assistant turn's blocks with the thinking kept for its toolUse blocks put back. */
export function withKeptConverseThinking(content: ConverseBlock[], kept: ReadonlyMap<string, KeptThinking> | null): ConverseBlock[] {
  return withKeptThinking(content, kept, (block) => ('toolUse' in block ? block.toolUse.toolUseId : null));
}
