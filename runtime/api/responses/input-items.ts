// A stored (emulated) response's input items, as GET /v1/responses/{id}/input_items lists them: the
// conversation the response continued, as Responses items, without the response's own answer (the
// vendor lists what went in: earlier turns' inputs and outputs, then this turn's input). The chat
// messages the gateway stored map back one way: text, image and file parts, assistant turns with their
// tool calls, tool results. Item IDs are made from the response's ID and the item's place
// (item-ids.ts), so they stay the same between calls and `after` pages through them.
import type { ChatMessage } from './conversation.ts';
import { textOf } from '../../providers/shared/chat.ts';
import { inputItemId } from './item-ids.ts';

export type InputItem = Record<string, unknown> & { id: string; type: 'message' | 'function_call' | 'function_call_output' };

/** The items of `conversation` (its last message, the answer, left out), oldest first. */
export function inputItemsOf(responseId: string, conversation: readonly ChatMessage[]): InputItem[] {
  const items: InputItem[] = [];
  const id = (prefix: string) => inputItemId(responseId, prefix, items.length);
  for (const message of conversation.slice(0, -1)) {
    if (message.role === 'tool') {
      items.push({ id: id('fco'), type: 'function_call_output', call_id: String(message.tool_call_id ?? ''), output: typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? ''), status: 'completed' });
      continue;
    }
    if (message.role === 'assistant') {
      const text = textOf(message.content);
      if (text !== '') items.push({ id: id('msg'), type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });
      const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } }>) : [];
      for (const call of calls) {
        items.push({ id: id('fc'), type: 'function_call', call_id: String(call.id ?? ''), name: String(call.function?.name ?? ''), arguments: String(call.function?.arguments ?? ''), status: 'completed' });
      }
      continue;
    }
    items.push({ id: id('msg'), type: 'message', role: message.role, status: 'completed', content: inputParts(message.content) });
  }
  return items;
}

/** A user or system turn's content as input parts. */
function inputParts(content: unknown): unknown[] {
  if (!Array.isArray(content)) return [{ type: 'input_text', text: textOf(content) }];
  return content.map((raw) => {
    const part = raw as { type?: unknown; text?: unknown; image_url?: { url?: unknown; detail?: unknown }; file?: Record<string, unknown> };
    if (part.type === 'image_url') return { type: 'input_image', image_url: String(part.image_url?.url ?? ''), detail: typeof part.image_url?.detail === 'string' ? part.image_url.detail : 'auto' };
    if (part.type === 'file') return { type: 'input_file', ...part.file };
    return { type: 'input_text', text: String(part.text ?? '') };
  });
}
