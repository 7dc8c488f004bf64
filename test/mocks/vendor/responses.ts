// /v1/responses of the vendor mock: create (the reply is the instance label and the last user
// text's words, as chat completions answer), stored unless `store: false`; retrieve; its input items; delete; and
// previous_response_id must name a stored response.
import type { MockContext } from './context.ts';
import { jsonObject, unixSeconds, vendorId } from './context.ts';
import { stateOf } from './jobs-state.ts';
import { contentText, replyFor, words } from './reply-text.ts';
import { badRequest, sendJson, sendVendorError } from './respond.ts';

function lastUserText(input: unknown): string {
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return '';
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i] as { role?: unknown; content?: unknown } | null;
    if (item?.role === 'user') return contentText(item.content);
  }
  return '';
}

export async function createResponse(ctx: MockContext): Promise<void> {
  const body = jsonObject(ctx);
  if (body === null) return badRequest(ctx, 'We could not parse the JSON body of your request.');
  if (typeof body.model !== 'string' || body.model === '') return badRequest(ctx, "Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
  if (body.stream === true) return badRequest(ctx, 'The mock does not stream responses.', 'stream');
  const state = stateOf(ctx);
  const previous = body.previous_response_id;
  if (typeof previous === 'string' && !state.responses.has(previous)) {
    return sendVendorError(ctx, 404, { message: `Previous response with id '${previous}' not found.`, param: 'previous_response_id', code: 'previous_response_not_found' });
  }
  const prompt = lastUserText(body.input);
  const maxTokens = typeof body.max_output_tokens === 'number' ? body.max_output_tokens : null;
  const reply = replyFor(ctx.label, prompt, maxTokens);
  const text = reply.tokens.join('');
  const inputTokens = words(prompt).length + 3;
  const response = {
    id: vendorId('resp_'), object: 'response', created_at: unixSeconds(), status: reply.finishReason === 'length' ? 'incomplete' : 'completed',
    error: null, incomplete_details: reply.finishReason === 'length' ? { reason: 'max_output_tokens' } : null,
    instructions: typeof body.instructions === 'string' ? body.instructions : null, max_output_tokens: maxTokens, model: body.model,
    output: [{ id: vendorId('msg_'), type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }],
    parallel_tool_calls: body.parallel_tool_calls !== false, previous_response_id: typeof previous === 'string' ? previous : null,
    reasoning: { effort: null, generate_summary: null }, temperature: typeof body.temperature === 'number' ? body.temperature : 1,
    text: { format: { type: 'text' } }, tool_choice: typeof body.tool_choice === 'string' ? body.tool_choice : 'auto', tools: Array.isArray(body.tools) ? body.tools : [],
    top_p: typeof body.top_p === 'number' ? body.top_p : 1, truncation: body.truncation === 'auto' ? 'auto' : 'disabled',
    usage: { input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: reply.tokens.length, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: inputTokens + reply.tokens.length },
    metadata: (body.metadata as Record<string, string> | undefined) ?? {},
  };
  if (body.store !== false) {
    state.responses.set(response.id, response);
    state.responseInputs.set(response.id, inputItems(body.input));
  }
  await sendJson(ctx, 200, response);
}

/** The request's input as the vendor lists it back: each message an item with an ID, text as input_text. */
function inputItems(input: unknown): Array<Record<string, unknown>> {
  const messages = typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? (input as Array<{ role?: unknown; content?: unknown }>) : [];
  return messages.map((message) => ({
    id: vendorId('msg_'), type: 'message', role: String(message.role ?? 'user'), status: 'completed',
    content: typeof message.content === 'string' ? [{ type: 'input_text', text: message.content }] : message.content,
  }));
}

/** GET /v1/responses/{id}/input_items: newest first, as the vendor's default order. */
export async function responseInputItems(ctx: MockContext, id: string): Promise<void> {
  const items = stateOf(ctx).responseInputs.get(id);
  if (items === undefined) return sendVendorError(ctx, 404, { message: `Response with id '${id}' not found.`, param: null, code: null });
  const data = [...items].reverse();
  await sendJson(ctx, 200, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });
}

export async function responseById(ctx: MockContext, id: string): Promise<void> {
  const responses = stateOf(ctx).responses;
  const response = responses.get(id);
  const method = ctx.record.method;
  if (response === undefined || (method !== 'GET' && method !== 'DELETE')) return sendVendorError(ctx, 404, { message: `Response with id '${id}' not found.`, param: null, code: null });
  if (method === 'DELETE') {
    responses.delete(id);
    stateOf(ctx).responseInputs.delete(id);
    return sendJson(ctx, 200, { id, object: 'response', deleted: true });
  }
  await sendJson(ctx, 200, response);
}
