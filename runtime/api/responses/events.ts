// A finished emulated response as the Responses API's event stream (`stream: true`): the events a
// provider sends while generating, replayed at once from the whole answer, each text in one delta.
// Delta events carry `obfuscation` (random characters that vary their size, as the vendor's do)
// unless the request's `stream_options.include_obfuscation` is false.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

type Item = Record<string, unknown>;

export interface EventOptions {
  obfuscation: boolean;
}

export function responseEvents(response: Record<string, unknown>, options: EventOptions = { obfuscation: true }): Array<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = [];
  const emit = (type: string, fields: Record<string, unknown>): void => {
    events.push({ type, sequence_number: events.length, ...fields });
  };
  const pending = { ...response, status: 'in_progress', output: [], output_text: '', usage: null, incomplete_details: null };
  emit('response.created', { response: pending });
  emit('response.in_progress', { response: pending });
  (response.output as Item[]).forEach((item, outputIndex) => {
    if (item.type === 'message') {
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
      (item.content as Item[]).forEach((part, contentIndex) => {
        const where = { item_id: item.id, output_index: outputIndex, content_index: contentIndex };
        if (part.type === 'output_text') {
          emit('response.content_part.added', { ...where, part: { ...part, text: '' } });
          emit('response.output_text.delta', { ...where, delta: part.text, logprobs: [], ...padding(options) });
          emit('response.output_text.done', { ...where, text: part.text, logprobs: [] });
        } else {
          emit('response.content_part.added', { ...where, part });
        }
        emit('response.content_part.done', { ...where, part });
      });
    } else if (item.type === 'reasoning') {
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, summary: [] } });
      (item.summary as Item[]).forEach((part, summaryIndex) => {
        const where = { item_id: item.id, output_index: outputIndex, summary_index: summaryIndex };
        emit('response.reasoning_summary_part.added', { ...where, part: { ...part, text: '' } });
        emit('response.reasoning_summary_text.delta', { ...where, delta: part.text, ...padding(options) });
        emit('response.reasoning_summary_text.done', { ...where, text: part.text });
        emit('response.reasoning_summary_part.done', { ...where, part });
      });
    } else if (item.type === 'function_call') {
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } });
      emit('response.function_call_arguments.delta', { item_id: item.id, output_index: outputIndex, delta: item.arguments, ...padding(options) });
      emit('response.function_call_arguments.done', { item_id: item.id, output_index: outputIndex, arguments: item.arguments });
    } else {
      emit('response.output_item.added', { output_index: outputIndex, item });
    }
    emit('response.output_item.done', { output_index: outputIndex, item });
  });
  emit(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
  return events;
}

/** 1 to 16 random characters. */
function padding(options: EventOptions): { obfuscation?: string } {
  if (!options.obfuscation) return {};
  const bytes = randomBytes(13);
  return { obfuscation: bytes.toString('base64url').slice(0, 1 + (bytes[0]! % 16)) };
}

/** `status`: 200, or 246 when a hook of the chat call failed (its results are in the log: events carry none). */
export function sendResponseEvents(res: ServerResponse, response: Record<string, unknown>, options: EventOptions, status = 200): void {
  const text = responseEvents(response, options).map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join('');
  res.writeHead(status, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}
