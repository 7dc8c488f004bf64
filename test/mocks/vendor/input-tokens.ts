// POST /v1/responses/input_tokens of the vendor mock: the Responses API's input count. Like the
// service it refuses a member the count does not take (a token limit, sampling), an input item or
// part of a shape it does not know, and a function tool without a name or parameters; it counts as
// the mock's chat does: each item's words and 3 an item, each tool's description's words and 3.
import type { MockContext } from './context.ts';
import { jsonObject } from './context.ts';
import { contentText, words } from './reply-text.ts';
import { badRequest, sendJson } from './respond.ts';

type Json = Record<string, unknown>;

const MEMBERS: ReadonlySet<string> = new Set(['conversation', 'input', 'instructions', 'model', 'parallel_tool_calls', 'previous_response_id', 'reasoning', 'text', 'tool_choice', 'tools', 'truncation']);
const ROLES: ReadonlySet<unknown> = new Set(['user', 'assistant', 'system', 'developer']);
/** Each input item's and part's members, by its type. */
const ITEM_MEMBERS: Readonly<Record<string, ReadonlySet<string>>> = {
  message: new Set(['type', 'role', 'content']),
  function_call: new Set(['type', 'call_id', 'name', 'arguments']),
  function_call_output: new Set(['type', 'call_id', 'output']),
};
const PART_MEMBERS: Readonly<Record<string, ReadonlySet<string>>> = {
  input_text: new Set(['type', 'text']),
  input_image: new Set(['type', 'image_url', 'file_id', 'detail']),
  input_file: new Set(['type', 'filename', 'file_data', 'file_id', 'file_url']),
};
const TOOL_MEMBERS: ReadonlySet<string> = new Set(['type', 'name', 'description', 'parameters', 'strict']);

/** What is wrong with the body, as the service's 400 says it (its message and param); null when nothing. */
export function inputTokensRefusal(body: Json): [string, string] | null {
  const unknown = Object.keys(body).find((key) => !MEMBERS.has(key));
  if (unknown !== undefined) return [`Unknown parameter: '${unknown}'.`, unknown];
  if (typeof body.model !== 'string' || body.model === '') return ["Missing required parameter: 'model'.", 'model'];
  const input = typeof body.input === 'string' ? [] : body.input;
  if (!Array.isArray(input)) return ["Invalid type for 'input': expected a string or an array of input items.", 'input'];
  for (const [i, value] of input.entries()) {
    const item = (value ?? {}) as Json;
    const type = item.type ?? 'message';
    const members = typeof type === 'string' && Object.hasOwn(ITEM_MEMBERS, type) ? ITEM_MEMBERS[type] : undefined;
    if (members === undefined) return [`Invalid value: '${String(type)}'.`, `input[${i}].type`];
    const extra = Object.keys(item).find((key) => !members.has(key));
    if (extra !== undefined) return [`Unknown parameter: 'input[${i}].${extra}'.`, `input[${i}].${extra}`];
    if (type === 'message') {
      if (!ROLES.has(item.role)) return [`Invalid value: '${String(item.role)}'.`, `input[${i}].role`];
      if (typeof item.content === 'string') continue;
      if (!Array.isArray(item.content)) return [`Invalid type for 'input[${i}].content'.`, `input[${i}].content`];
      for (const [j, part] of (item.content as Json[]).entries()) {
        const partMembers = typeof part?.type === 'string' && Object.hasOwn(PART_MEMBERS, part.type) ? PART_MEMBERS[part.type] : undefined;
        if (partMembers === undefined) return [`Invalid value: '${String(part?.type)}'.`, `input[${i}].content[${j}].type`];
        const partExtra = Object.keys(part).find((key) => !partMembers.has(key));
        if (partExtra !== undefined) return [`Unknown parameter: 'input[${i}].content[${j}].${partExtra}'.`, `input[${i}].content[${j}].${partExtra}`];
      }
    } else if (typeof item.call_id !== 'string') return [`Missing required parameter: 'input[${i}].call_id'.`, `input[${i}].call_id`];
  }
  for (const [i, value] of (Array.isArray(body.tools) ? body.tools : []).entries()) {
    const tool = (value ?? {}) as Json;
    const extra = Object.keys(tool).find((key) => !TOOL_MEMBERS.has(key));
    if (extra !== undefined) return [`Unknown parameter: 'tools[${i}].${extra}'.`, `tools[${i}].${extra}`];
    if (tool.type !== 'function' || typeof tool.name !== 'string' || typeof tool.parameters !== 'object') return [`Invalid value for 'tools[${i}]': a function tool takes a name and parameters.`, `tools[${i}]`];
  }
  return null;
}

/** The mock's count of an input item: its words (text, a call's arguments, a call's output) and 3. */
function itemTokens(item: Json): number {
  const text = item.type === 'function_call' ? String(item.arguments ?? '') : item.type === 'function_call_output' ? contentText(item.output) : contentText(item.content);
  return words(text).length + 3;
}

export async function countInputTokens(ctx: MockContext): Promise<void> {
  const body = jsonObject(ctx);
  if (body === null) return badRequest(ctx, 'We could not parse the JSON body of your request.');
  const refused = inputTokensRefusal(body);
  if (refused !== null) return badRequest(ctx, refused[0], refused[1]);
  return sendJson(ctx, 200, { object: 'response.input_tokens', input_tokens: inputTokensOf(body) });
}

/** The mock's count of a valid body's input: its items', its instructions' words, its tools'. */
export function inputTokensOf(body: Json): number {
  const items = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input as Json[] | undefined) ?? [];
  let tokens = items.reduce((n, item) => n + itemTokens(item), 0);
  if (typeof body.instructions === 'string') tokens += words(body.instructions).length;
  for (const tool of (body.tools ?? []) as Json[]) tokens += words(String(tool.description ?? '')).length + 3;
  return tokens;
}
