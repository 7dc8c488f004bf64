// converse's text. A request: `system` (text blocks) and `messages`, each turn's `content` blocks:
// text, guardContent (text the provider's guardrail reads, sent to the model too), toolResult (its
// content's text blocks), and blocks that hold no text a check reads (image, document, toolUse, a
// reasoningContent block: the model's reasoning sent back). An answer: `output.message.content`,
// text and reasoning blocks among them. Its stream (converse-stream): contentBlockDelta events, a
// piece of a block's text or reasoning by `contentBlockIndex`; the rest (messageStop, metadata) ride
// along as the answer's other members.
import { type Apply, isObject, type Json, lastUserTurn, type OwnStreamReader, rewriteSystemAndTurns, type OwnText, type Piece } from './own-text.ts';

type Member = 'text' | 'reasoning';

function blocksOf(turn: unknown): unknown[] {
  return isObject(turn) && Array.isArray(turn.content) ? turn.content : [];
}

/** A block's text a check judges: a text block's, a guardContent block's. */
function blockText(block: unknown): string {
  if (!isObject(block)) return '';
  if (typeof block.text === 'string') return block.text;
  const guarded = isObject(block.guardContent) && isObject(block.guardContent.text) ? block.guardContent.text.text : undefined;
  return typeof guarded === 'string' ? guarded : '';
}

function onlyToolResults(turn: Json): boolean {
  const blocks = blocksOf(turn);
  return blocks.length > 0 && blocks.every((block) => isObject(block) && block.toolResult !== undefined);
}

function rewriteBlocks(blocks: unknown, apply: Apply): unknown {
  if (!Array.isArray(blocks)) return blocks;
  return blocks.map((block) => {
    if (!isObject(block)) return block;
    if (typeof block.text === 'string') return { ...block, text: apply(block.text) };
    const guard = block.guardContent;
    if (isObject(guard) && isObject(guard.text) && typeof guard.text.text === 'string') return { ...block, guardContent: { ...guard, text: { ...guard.text, text: apply(guard.text.text) } } };
    const result = block.toolResult;
    if (isObject(result)) return { ...block, toolResult: { ...result, content: rewriteBlocks(result.content, apply) } };
    return block;
  });
}

/** An answer's block's text by member: a text block's, a reasoning block's reasoningText. */
function memberText(block: unknown): [Member, string] | null {
  if (!isObject(block)) return null;
  if (typeof block.text === 'string') return ['text', block.text];
  const reasoning = isObject(block.reasoningContent) ? block.reasoningContent.reasoningText : undefined;
  return isObject(reasoning) && typeof reasoning.text === 'string' ? ['reasoning', reasoning.text] : null;
}

function answerBlocks(answer: unknown): unknown[] {
  const output = isObject(answer) ? answer.output : undefined;
  return blocksOf(isObject(output) ? output.message : undefined);
}

class ConverseStreamReader implements OwnStreamReader {
  readonly #rest: Json = {};
  readonly #blocks: Json[] = [];

  read(event: Json, type: string | undefined): Piece[] {
    if (type !== 'contentBlockDelta') {
      // messageStop's stopReason, metadata's usage: the answer's own members.
      if (type === 'messageStop' || type === 'metadata') {
        const { p: _padding, ...members } = event;
        Object.assign(this.#rest, members);
      }
      return [];
    }
    const index = event.contentBlockIndex;
    const delta = event.delta;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || !isObject(delta)) return [];
    if (typeof delta.text === 'string') {
      const block = (this.#blocks[index] ??= { text: '' });
      block.text = (typeof block.text === 'string' ? block.text : '') + delta.text;
      return [{ slot: `${index}:text`, text: delta.text, primary: true, put: (text) => (delta.text = text) }];
    }
    const reasoning = delta.reasoningContent;
    if (!isObject(reasoning) || (typeof reasoning.text !== 'string' && typeof reasoning.signature !== 'string')) return [];
    const block = (this.#blocks[index] ??= { reasoningContent: { reasoningText: { text: '' } } });
    const held = (block.reasoningContent as { reasoningText?: { text: string; signature?: string } } | undefined)?.reasoningText;
    if (typeof reasoning.text === 'string') {
      if (held !== undefined) held.text += reasoning.text;
      return [{ slot: `${index}:reasoning`, text: reasoning.text, primary: true, put: (text) => (reasoning.text = text) }];
    }
    // The block's signature, which the answer holds beside its text (guardrails/reasoning/).
    if (typeof reasoning.signature === 'string' && held !== undefined) held.signature = (held.signature ?? '') + reasoning.signature;
    return [];
  }

  answer(): Json {
    return { output: { message: { role: 'assistant', content: Array.from(this.#blocks, (block) => block ?? {}) } }, ...this.#rest };
  }
}

export const converseText: OwnText = {
  requestText(body) {
    const turn = lastUserTurn(body.messages, (t) => t.role === 'user', onlyToolResults);
    return turn === null ? '' : blocksOf(turn).map(blockText).join('');
  },
  rewriteRequest: (body, apply) => rewriteSystemAndTurns(body, (content) => rewriteBlocks(content, apply)),
  answerTexts(answer) {
    let text = '';
    for (const block of answerBlocks(answer)) {
      const found = memberText(block);
      if (found !== null && found[0] === 'text') text += found[1];
    }
    return [{ label: '', text }];
  },
  rewriteAnswer(answer, apply) {
    const output = answer.output;
    if (!isObject(output) || !isObject(output.message) || !Array.isArray(output.message.content)) return answer;
    const content = output.message.content.map((block) => {
      const found = memberText(block);
      if (found === null) return block;
      const b = block as Json;
      if (found[0] === 'text') return { ...b, text: apply(found[1]) };
      const reasoning = b.reasoningContent as Json;
      return { ...b, reasoningContent: { ...reasoning, reasoningText: { ...(reasoning.reasoningText as Json), text: apply(found[1]) } } };
    });
    return { ...answer, output: { ...output, message: { ...output.message, content } } };
  },
  slots(answer) {
    const slots = new Map<string, string>();
    answerBlocks(answer).forEach((block, index) => {
      const found = memberText(block);
      if (found !== null) slots.set(`${index}:${found[0]}`, found[1]);
    });
    return slots;
  },
  streamReader: () => new ConverseStreamReader(),
};
