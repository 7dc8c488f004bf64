// The messages API's create call as a chat completion, for a target that does not answer it as itself
// (every provider but Claude's hosts): so a messages client (the Anthropic SDK, a coding agent) can
// use any model, and a fallback from a Claude target to another serves one body.
// Every member of the body, of its blocks and of its tools is read or refused, never dropped unseen:
// what only Claude has (server tools, documents, containers, MCP servers, context management, a data
// residency) is refused naming it; what is Claude's own and means nothing to another model (signed
// thinking blocks of earlier turns, its prompt cache's breakpoints and diagnostics, citations, its
// serving tier and speed) is left out, as the chat translations leave the chat's hints
// (docs/providers.md). The answer comes back through chat-as-messages.ts.
import { GatewayError } from '../../core/errors.ts';
import { THINKING_BUDGETS, type ReasoningEffort } from './asked-thinking.ts';

type Json = Record<string, unknown>;

/** Where the chat API takes the answer's token limit: the vendor's current name, or the older one most compatible servers take. */
export type MaxTokensField = 'max_completion_tokens' | 'max_tokens';

/** Members of the create call's body this translation reads. */
const READ = new Set(['model', 'messages', 'system', 'max_tokens', 'stop_sequences', 'stream', 'temperature', 'top_p', 'tools', 'tool_choice', 'metadata', 'thinking', 'output_config', 'context_management']);
/** Claude's own hints (its serving, its prompt cache), which leave another model's answer as it is. */
const LEFT_OUT = new Set(['service_tier', 'speed', 'cache_control', 'diagnostics']);
/** Members of each part this translation reads, and Claude's hints on it it leaves out. */
type Members = { read: ReadonlySet<string>; leftOut: ReadonlySet<string>; /** Why any other is refused; Claude's own unless said. */ why?: string };
const NONE: ReadonlySet<string> = new Set();
const TEXT_BLOCK = { read: new Set(['type', 'text']), leftOut: new Set(['cache_control', 'citations']) };
const IMAGE_BLOCK = { read: new Set(['type', 'source']), leftOut: new Set(['cache_control']) };
const DOCUMENT_BLOCK = { read: new Set(['type', 'source', 'title']), leftOut: new Set(['cache_control']) };
const TOOL_RESULT = { read: new Set(['type', 'tool_use_id', 'content']), leftOut: new Set(['cache_control', 'is_error']) };
const TOOL_USE = { read: new Set(['type', 'id', 'name', 'input', 'caller', 'toolset_name']), leftOut: new Set(['cache_control']) };
const TOOL = { read: new Set(['type', 'name', 'description', 'input_schema', 'strict']), leftOut: new Set(['cache_control', 'eager_input_streaming']) };
const TOOL_CHOICE = { read: new Set(['type', 'name', 'disable_parallel_tool_use']), leftOut: NONE };
const THINKING = { read: new Set(['type', 'budget_tokens']), leftOut: new Set(['display']) };
const OUTPUT_CONFIG = { read: new Set(['effort', 'format']), leftOut: NONE };
const SYSTEM_MESSAGE = { read: new Set(['role', 'content', 'clear_at']), leftOut: NONE };
const BASE64_SOURCE = { read: new Set(['type', 'media_type', 'data']), leftOut: NONE };
const URL_SOURCE = { read: new Set(['type', 'url']), leftOut: NONE };
const OUTPUT_FORMAT = { read: new Set(['type', 'schema']), leftOut: NONE };
const MESSAGE = { read: new Set(['role', 'content']), leftOut: NONE, why: 'is not part of a message' };
const METADATA = { read: new Set(['user_id']), leftOut: NONE, why: 'is not among the metadata the messages API takes (user_id)' };
const CONTEXT_MANAGEMENT = { read: new Set(['edits']), leftOut: NONE };
const CLEAR_THINKING = { read: new Set(['type', 'keep']), leftOut: NONE };

/** The messages API's efforts as the chat API's: it has no `max`, and its most is `xhigh`. */
const CHAT_EFFORTS: ReadonlyMap<unknown, ReasoningEffort> = new Map([['low', 'low'], ['medium', 'medium'], ['high', 'high'], ['xhigh', 'xhigh'], ['max', 'xhigh']]);

/** A JSON pointer as the member's dotted name (`/tools/0/strict` → `tools.0.strict`). */
function dotted(pointer: string): string {
  return pointer.slice(1).replaceAll('/', '.');
}

/** What the translation does not map, named by its pointer. */
function refusedAt(pointer: string, why: string): GatewayError {
  return new GatewayError('unsupported_parameter', `The messages API's "${dotted(pointer)}" ${why}: a chat completion has no such thing, and the gateway does not map it.`, pointer);
}

function invalid(pointer: string, what: string): GatewayError {
  return new GatewayError('invalid_request_body', `Invalid request body: ${dotted(pointer)} ${what}.`, pointer);
}

/**
 * Refuses a member of `value` (at `pointer`) that this translation neither reads nor leaves out,
 * naming it: the messages API gains members, and one dropped unseen would leave the model answering
 * without what the client asked of it.
 */
function onlyKnown(value: Json, pointer: string, members: Members): Json {
  for (const member of Object.keys(value)) {
    if (members.read.has(member) || members.leftOut.has(member) || value[member] === undefined) continue;
    throw refusedAt(`${pointer}/${member}`, members.why ?? 'is Claude\'s own');
  }
  return value;
}

function objectAt(value: unknown, pointer: string): Json {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid(pointer, 'must be an object');
  return value as Json;
}

function stringAt(value: unknown, pointer: string): string {
  if (typeof value !== 'string') throw invalid(pointer, 'must be a string');
  return value;
}

/** The chat completion body of a messages create call's `body` (override_params applied). */
export function chatOfMessages(body: Json | null | undefined, maxTokensField: MaxTokensField): Json {
  if (body === null || body === undefined) throw new GatewayError('invalid_request_body', 'Invalid request body: the messages API takes a JSON object.');
  onlyKnown(body, '', { read: READ, leftOut: LEFT_OUT });
  const chat: Json = { model: stringAt(body.model, '/model') };
  const messages: Json[] = [];
  const system = systemText(body.system, '/system');
  if (system !== null) messages.push({ role: 'system', content: system });
  if (!Array.isArray(body.messages)) throw invalid('/messages', 'must be a list');
  const turns = body.messages.map((message, i) => objectAt(message, `/messages/${i}`));
  turns.forEach((message, i) => messages.push(...chatMessagesOf(message, i, turns)));
  chat.messages = messages;
  if (body.max_tokens !== undefined) chat[maxTokensField] = body.max_tokens;
  if (body.stop_sequences !== undefined) chat.stop = body.stop_sequences;
  if (body.temperature !== undefined) chat.temperature = body.temperature;
  if (body.top_p !== undefined) chat.top_p = body.top_p;
  if (body.tools !== undefined) chat.tools = toolsOf(body.tools);
  if (body.tool_choice !== undefined) Object.assign(chat, toolChoiceOf(objectAt(body.tool_choice, '/tool_choice')));
  if (body.metadata !== undefined && body.metadata !== null) {
    const metadata = onlyKnown(objectAt(body.metadata, '/metadata'), '/metadata', METADATA);
    if (metadata.user_id !== undefined && metadata.user_id !== null) chat.user = stringAt(metadata.user_id, '/metadata/user_id');
  }
  if (body.context_management !== undefined && body.context_management !== null) readContextManagement(objectAt(body.context_management, '/context_management'));
  const output = body.output_config === undefined || body.output_config === null ? {} : onlyKnown(objectAt(body.output_config, '/output_config'), '/output_config', OUTPUT_CONFIG);
  // Claude's effort names the level itself; a thinking budget only bounds the thinking, so the
  // effort, when both are sent, is what the chat's one level says.
  const effort = effortNamed(output.effort) ?? effortOf(body.thinking);
  if (effort !== undefined) chat.reasoning_effort = effort;
  if (output.format !== undefined && output.format !== null) chat.response_format = responseFormatOf(objectAt(output.format, '/output_config/format'));
  if (body.stream !== undefined && typeof body.stream !== 'boolean') throw invalid('/stream', 'must be a boolean');
  if (body.stream === true) chat.stream = true;
  return chat;
}

/** System text (`system`, or a system message's content): a string, or text blocks (joined by a blank line); null when there is none. */
function systemText(system: unknown, at: string): string | null {
  if (system === undefined || system === null) return null;
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) throw invalid(at, 'must be a string or a list of text blocks');
  return system.map((block, i) => textOf(objectAt(block, `${at}/${i}`), `${at}/${i}`)).join('\n\n');
}

/** A text block's text; any other block is refused, naming its type. */
function textOf(block: Json, at: string): string {
  if (block.type !== 'text') throw refusedAt(`${at}/type`, `is a block (${JSON.stringify(block.type)}) where the gateway maps text only`);
  onlyKnown(block, at, TEXT_BLOCK);
  return stringAt(block.text, `${at}/text`);
}

/**
 * A turn as chat messages: an assistant turn as one message (its tool_use blocks as tool calls), a
 * user turn's tool results as tool messages first, then its other blocks as one user message; a
 * system message (the beta API's) as a system message where it stands, or as none once the user turn
 * it was for has passed (`clear_at: "next_user_message"`).
 */
function chatMessagesOf(message: Json, i: number, turns: readonly Json[]): Json[] {
  const role = message.role;
  if (role === 'system') return systemMessageOf(message, i, turns);
  if (role !== 'user' && role !== 'assistant') throw invalid(`/messages/${i}/role`, 'must be "user", "assistant" or "system"');
  onlyKnown(message, `/messages/${i}`, MESSAGE);
  const content = message.content;
  if (typeof content === 'string') return [{ role, content }];
  if (!Array.isArray(content)) throw invalid(`/messages/${i}/content`, 'must be a string or a list of blocks');
  const blocks = content.map((block, j) => objectAt(block, `/messages/${i}/content/${j}`));
  return role === 'assistant' ? [assistantOf(blocks, i)] : userOf(blocks, i);
}

function systemMessageOf(message: Json, i: number, turns: readonly Json[]): Json[] {
  onlyKnown(message, `/messages/${i}`, SYSTEM_MESSAGE);
  const clearAt = message.clear_at;
  if (clearAt !== undefined && clearAt !== null && clearAt !== 'never' && clearAt !== 'next_user_message') throw invalid(`/messages/${i}/clear_at`, 'must be "never" or "next_user_message"');
  if (clearAt === 'next_user_message' && turns.slice(i + 1).some((turn) => turn.role === 'user')) return [];
  const text = systemText(message.content, `/messages/${i}/content`);
  return text === null ? [] : [{ role: 'system', content: text }];
}

function assistantOf(blocks: Json[], i: number): Json {
  const texts: string[] = [];
  const calls: Json[] = [];
  blocks.forEach((block, j) => {
    const at = `/messages/${i}/content/${j}`;
    switch (block.type) {
      case 'text':
        texts.push(textOf(block, at));
        return;
      case 'tool_use':
        calls.push(toolCallOf(block, at));
        return;
      // Claude's signed reasoning of an earlier turn: another model neither reads nor verifies it.
      case 'thinking': case 'redacted_thinking':
        return;
      default:
        throw refusedAt(`${at}/type`, `is a block (${JSON.stringify(block.type)}) only Claude answers`);
    }
  });
  const message: Json = { role: 'assistant', content: texts.length === 0 ? null : texts.join('') };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

function userOf(blocks: Json[], i: number): Json[] {
  const results: Json[] = [];
  // A chat tool message holds text only: a tool result's images and documents (a screenshot, a PDF a
  // coding agent's tool read) go to the user message that follows the tool messages, first, in order.
  const resultAttachments: Json[] = [];
  const parts: Json[] = [];
  blocks.forEach((block, j) => {
    const at = `/messages/${i}/content/${j}`;
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: textOf(block, at) });
        return;
      case 'image':
        parts.push(imagePartOf(block, at));
        return;
      case 'document':
        parts.push(filePartOf(block, at));
        return;
      case 'tool_result':
        onlyKnown(block, at, TOOL_RESULT);
        results.push({ role: 'tool', tool_call_id: stringAt(block.tool_use_id, `${at}/tool_use_id`), content: toolResultText(block.content, `${at}/content`, resultAttachments) });
        return;
      default:
        throw refusedAt(`${at}/type`, `is a block (${JSON.stringify(block.type)}) the gateway does not map to a chat message (text, image, document and tool_result are)`);
    }
  });
  // The chat API wants a tool call's result right after the call: a turn's results come before its
  // words. One text block is the message's text; several stay apart, as parts (a coding agent sends
  // its reminders and the prompt as blocks of one turn).
  parts.unshift(...resultAttachments);
  if (parts.length === 1 && parts[0]!.type === 'text') results.push({ role: 'user', content: parts[0]!.text });
  else if (parts.length > 0) results.push({ role: 'user', content: parts });
  return results;
}

/** A PDF document as the chat's file part, its title as the file's name (the chat API wants one). */
function filePartOf(block: Json, at: string): Json {
  onlyKnown(block, at, DOCUMENT_BLOCK);
  const source = objectAt(block.source, `${at}/source`);
  if (source.type !== 'base64' || source.media_type !== 'application/pdf') {
    throw refusedAt(`${at}/source`, `is a document source (${JSON.stringify(source.type)}${source.type === 'base64' ? ` of ${JSON.stringify(source.media_type)}` : ''}) a chat file part does not hold (a PDF in base64 is mapped)`);
  }
  onlyKnown(source, `${at}/source`, BASE64_SOURCE);
  const title = block.title === undefined || block.title === null ? 'document.pdf' : stringAt(block.title, `${at}/title`);
  return { type: 'file', file: { filename: title, file_data: `data:application/pdf;base64,${stringAt(source.data, `${at}/source/data`)}` } };
}

function imagePartOf(block: Json, at: string): Json {
  onlyKnown(block, at, IMAGE_BLOCK);
  return { type: 'image_url', image_url: { url: imageUrlOf(objectAt(block.source, `${at}/source`), `${at}/source`) } };
}

/**
 * A tool call of an earlier assistant turn. Claude's answers name who made each call (`caller`), and
 * a client sends its answer back as it came: a call the model made itself is one a chat has; one
 * Claude's code execution made, or one of an MCP toolset, is refused.
 */
function toolCallOf(block: Json, at: string): Json {
  onlyKnown(block, at, TOOL_USE);
  if (block.caller !== undefined && block.caller !== null && objectAt(block.caller, `${at}/caller`).type !== 'direct') throw refusedAt(`${at}/caller`, 'names a tool Claude runs itself');
  if (block.toolset_name !== undefined && block.toolset_name !== null) throw refusedAt(`${at}/toolset_name`, 'names an MCP toolset, which Claude calls itself');
  return { id: stringAt(block.id, `${at}/id`), type: 'function', function: { name: stringAt(block.name, `${at}/name`), arguments: JSON.stringify(block.input ?? {}) } };
}

function imageUrlOf(source: Json, at: string): string {
  if (source.type === 'base64') return `data:${stringAt(onlyKnown(source, at, BASE64_SOURCE).media_type, `${at}/media_type`)};base64,${stringAt(source.data, `${at}/data`)}`;
  if (source.type === 'url') return stringAt(onlyKnown(source, at, URL_SOURCE).url, `${at}/url`);
  throw refusedAt(`${at}/type`, `(${JSON.stringify(source.type)}: a file) is Claude's own`);
}

/** A tool result's content as the tool message's text (a string, or text blocks joined), its images and documents put in `attachments`. */
function toolResultText(content: unknown, at: string, attachments: Json[]): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalid(at, 'must be a string or a list of blocks');
  let text = '';
  content.forEach((value, k) => {
    const block = objectAt(value, `${at}/${k}`);
    if (block.type === 'image') attachments.push(imagePartOf(block, `${at}/${k}`));
    else if (block.type === 'document') attachments.push(filePartOf(block, `${at}/${k}`));
    else if (block.type === 'text') text += textOf(block, `${at}/${k}`);
    else throw refusedAt(`${at}/${k}/type`, `is a block (${JSON.stringify(block.type)}) a chat holds no equivalent of in a tool result (its text, images and PDF documents are mapped)`);
  });
  return text;
}

function toolsOf(tools: unknown): Json[] {
  if (!Array.isArray(tools)) throw invalid('/tools', 'must be a list');
  return tools.map((value, i) => {
    const tool = objectAt(value, `/tools/${i}`);
    if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') throw refusedAt(`/tools/${i}/type`, `is a tool (${JSON.stringify(tool.type)}) Claude runs itself`);
    onlyKnown(tool, `/tools/${i}`, TOOL);
    const fn: Json = { name: stringAt(tool.name, `/tools/${i}/name`), parameters: objectAt(tool.input_schema, `/tools/${i}/input_schema`) };
    if (tool.description !== undefined) fn.description = stringAt(tool.description, `/tools/${i}/description`);
    if (tool.strict !== undefined) fn.strict = booleanAt(tool.strict, `/tools/${i}/strict`);
    return { type: 'function', function: fn };
  });
}

function toolChoiceOf(choice: Json): Json {
  onlyKnown(choice, '/tool_choice', TOOL_CHOICE);
  const chat: Json = {};
  switch (choice.type) {
    case 'auto': chat.tool_choice = 'auto'; break;
    case 'any': chat.tool_choice = 'required'; break;
    case 'none': chat.tool_choice = 'none'; break;
    case 'tool': chat.tool_choice = { type: 'function', function: { name: stringAt(choice.name, '/tool_choice/name') } }; break;
    default: throw invalid('/tool_choice/type', 'must be "auto", "any", "tool" or "none"');
  }
  if (choice.disable_parallel_tool_use === true) chat.parallel_tool_calls = false;
  return chat;
}

/**
 * Claude's extended thinking as the chat API's effort: an enabled thinking's budget as the least
 * effort whose budget covers it (the one table of asked-thinking.ts, read the other way); adaptive or
 * disabled thinking, or none, leave the model at its own default.
 */
function effortOf(thinking: unknown): ReasoningEffort | undefined {
  if (thinking === undefined || thinking === null) return undefined;
  const asked = objectAt(thinking, '/thinking');
  onlyKnown(asked, '/thinking', THINKING);
  if (asked.type === 'adaptive' || asked.type === 'disabled') return undefined;
  if (asked.type !== 'enabled' || typeof asked.budget_tokens !== 'number') throw invalid('/thinking', 'must be {"type": "enabled", "budget_tokens": <tokens>}, {"type": "adaptive"} or {"type": "disabled"}');
  const budget = asked.budget_tokens;
  const efforts: Array<Exclude<ReasoningEffort, 'none'>> = ['low', 'medium', 'high', 'xhigh'];
  return efforts.find((effort) => budget <= THINKING_BUDGETS[effort]) ?? 'xhigh';
}

/** `output_config.effort` as the chat's effort; undefined when not set. */
function effortNamed(effort: unknown): ReasoningEffort | undefined {
  if (effort === undefined || effort === null) return undefined;
  const named = CHAT_EFFORTS.get(effort);
  if (named === undefined) throw invalid('/output_config/effort', 'must be "low", "medium", "high", "xhigh" or "max"');
  return named;
}

/**
 * `output_config.format` as the chat's `response_format`: Claude's structured output holds its
 * answer to the schema, and so does a strict `json_schema` format (each family's translation takes
 * it as its own, or refuses it where it cannot hold the answer to it).
 */
function responseFormatOf(format: Json): Json {
  onlyKnown(format, '/output_config/format', OUTPUT_FORMAT);
  if (format.type !== 'json_schema') throw invalid('/output_config/format/type', 'must be "json_schema"');
  return { type: 'json_schema', json_schema: { name: 'output', schema: objectAt(format.schema, '/output_config/format/schema'), strict: true } };
}

function booleanAt(value: unknown, pointer: string): boolean {
  if (typeof value !== 'boolean') throw invalid(pointer, 'must be a boolean');
  return value;
}

/**
 * The beta API's context editing. Clearing earlier turns' thinking (`clear_thinking_20251015`, which
 * a coding agent sends on every turn) is read and holds whatever it keeps: the chat carries no
 * thinking of earlier turns at all (no other model reads Claude's). Any other edit (clearing tool
 * results past a token count, compaction) would change what the model sees: refused, naming it.
 */
function readContextManagement(config: Json): void {
  onlyKnown(config, '/context_management', CONTEXT_MANAGEMENT);
  if (config.edits === undefined || config.edits === null) return;
  if (!Array.isArray(config.edits)) throw invalid('/context_management/edits', 'must be a list');
  config.edits.forEach((value, i) => {
    const at = `/context_management/edits/${i}`;
    const edit = objectAt(value, at);
    if (edit.type !== 'clear_thinking_20251015') throw refusedAt(`${at}/type`, `is an edit (${JSON.stringify(edit.type)}) of what the model sees, which the gateway does not make (it clears earlier turns' thinking only)`);
    onlyKnown(edit, at, CLEAR_THINKING);
    const keep = edit.keep;
    const asked = typeof keep === 'object' && keep !== null ? keep as Json : {};
    const kept = keep === undefined || keep === 'all' || asked.type === 'all' || (asked.type === 'thinking_turns' && Number.isInteger(asked.value) && (asked.value as number) >= 1);
    if (!kept) throw invalid(`${at}/keep`, 'must be "all", {"type": "all"} or {"type": "thinking_turns", "value": <turns, at least 1>}');
  });
}
