// The messages API's text (a Claude model's invoke speaks it too). A request: `system` (a string or
// text blocks) and `messages`, each a string or blocks: text, tool_result (its content a string or
// text blocks), and ones that hold no text a check reads (image, document, tool_use, thinking). An
// answer: `content` blocks, text and thinking among them. Its stream: content_block_start (a block,
// sometimes with text), content_block_delta (text_delta, thinking_delta) by block index.
import { type Apply, isObject, type Json, lastUserTurn, type OwnStreamReader, rewriteSystemAndTurns, type OwnText, type Piece } from './own-text.ts';

function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const block of content) if (isObject(block) && block.type === 'text' && typeof block.text === 'string') text += block.text;
  return text;
}

function onlyToolResults(turn: Json): boolean {
  const content = turn.content;
  return Array.isArray(content) && content.length > 0 && content.every((block) => isObject(block) && block.type === 'tool_result');
}

function rewriteContent(content: unknown, apply: Apply): unknown {
  if (typeof content === 'string') return apply(content);
  if (!Array.isArray(content)) return content;
  return content.map((block) => {
    if (!isObject(block)) return block;
    if (block.type === 'text' && typeof block.text === 'string') return { ...block, text: apply(block.text) };
    if (block.type === 'tool_result') return { ...block, content: rewriteContent(block.content, apply) };
    return block;
  });
}

/** An answer's block's text member: a text block's `text`, a thinking block's `thinking`. */
function memberOf(block: Json): 'text' | 'thinking' | null {
  if (block.type === 'text' && typeof block.text === 'string') return 'text';
  if (block.type === 'thinking' && typeof block.thinking === 'string') return 'thinking';
  return null;
}

class MessagesStreamReader implements OwnStreamReader {
  #message: Json = { type: 'message', role: 'assistant' };
  readonly #blocks: Json[] = [];

  read(event: Json): Piece[] {
    if (event.type === 'message_start' && isObject(event.message)) {
      this.#message = { ...event.message };
      return [];
    }
    const index = typeof event.index === 'number' && Number.isInteger(event.index) && event.index >= 0 ? event.index : null;
    if (index === null) return [];
    if (event.type === 'content_block_start' && isObject(event.content_block)) {
      const opened = event.content_block;
      this.#blocks[index] = { ...opened };
      const member = memberOf(opened);
      return member === null ? [] : [{ slot: `${index}:${member}`, text: opened[member] as string, primary: false, put: (text) => (opened[member] = text) }];
    }
    if (event.type === 'content_block_delta' && isObject(event.delta)) {
      const delta = event.delta;
      // A thinking block's signature, which the answer holds beside its text (guardrails/reasoning/).
      if (delta.type === 'signature_delta' && typeof delta.signature === 'string') {
        const block = (this.#blocks[index] ??= { type: 'thinking', thinking: '' });
        block.signature = (typeof block.signature === 'string' ? block.signature : '') + delta.signature;
        return [];
      }
      const member = delta.type === 'text_delta' ? 'text' : delta.type === 'thinking_delta' ? 'thinking' : null;
      if (member === null || typeof delta[member] !== 'string') return [];
      const block = (this.#blocks[index] ??= { type: member });
      block[member] = (typeof block[member] === 'string' ? block[member] : '') + (delta[member] as string);
      return [{ slot: `${index}:${member}`, text: delta[member] as string, primary: true, put: (text) => (delta[member] = text) }];
    }
    return [];
  }

  answer(): Json {
    return { ...this.#message, content: Array.from(this.#blocks, (block) => block ?? { type: 'unknown' }) };
  }
}

export const messagesText: OwnText = {
  requestText(body) {
    const turn = lastUserTurn(body.messages, (t) => t.role === 'user', onlyToolResults);
    return turn === null ? '' : textOfContent(turn.content);
  },
  rewriteRequest: (body, apply) => rewriteSystemAndTurns(body, (content) => rewriteContent(content, apply)),
  answerTexts(answer) {
    return [{ label: '', text: textOfContent(answer.content) }];
  },
  rewriteAnswer(answer, apply) {
    if (!Array.isArray(answer.content)) return answer;
    const content = answer.content.map((block) => {
      const member = isObject(block) ? memberOf(block) : null;
      return member === null ? block : { ...(block as Json), [member]: apply((block as Json)[member] as string) };
    });
    return { ...answer, content };
  },
  slots(answer) {
    const slots = new Map<string, string>();
    const content = isObject(answer) ? answer.content : undefined;
    if (!Array.isArray(content)) return slots;
    content.forEach((block, index) => {
      const member = isObject(block) ? memberOf(block) : null;
      if (member !== null) slots.set(`${index}:${member}`, (block as Json)[member] as string);
    });
    return slots;
  },
  streamReader: () => new MessagesStreamReader(),
};
