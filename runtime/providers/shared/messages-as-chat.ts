// The messages API's create call as a chat completion, for a target that does not answer it as itself
// (every provider but Claude's hosts): so a messages client (the Anthropic SDK, a coding agent) can
// use any model, and a fallback from a Claude target to another serves one body.
// Every member of the body is read or refused, never dropped unseen: what only Claude has (server
// tools, documents, containers, MCP servers, context management) is refused naming it; what is
// Claude's own and means nothing to another model (signed thinking blocks of earlier turns, cache
// breakpoints, citations, `service_tier`) is left out, as the chat translations leave the chat's
// hints (docs/providers.md). The answer comes back through chat-as-messages.ts.
import { GatewayError } from '../../core/errors.ts';
import { THINKING_BUDGETS, type ReasoningEffort } from './asked-thinking.ts';

type Json = Record<string, unknown>;

/** Where the chat API takes the answer's token limit: the vendor's current name, or the older one most compatible servers take. */
export type MaxTokensField = 'max_completion_tokens' | 'max_tokens';

/** Members of the create call's body this translation reads. */
const READ = new Set(['model', 'messages', 'system', 'max_tokens', 'stop_sequences', 'stream', 'temperature', 'top_p', 'tools', 'tool_choice', 'metadata', 'thinking']);
/** Claude's own hints, which leave another model's answer as it is. */
const LEFT_OUT = new Set(['service_tier']);

function refused(member: string, pointer: string, why: string): GatewayError {
  return new GatewayError('unsupported_parameter', `The messages API's "${member}" ${why}: a chat completion has no such thing, and the gateway does not map it.`, pointer);
}

function invalid(pointer: string, what: string): GatewayError {
  return new GatewayError('invalid_request_body', `Invalid request body: ${pointer.slice(1).replaceAll('/', '.')} ${what}.`, pointer);
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
  for (const member of Object.keys(body)) {
    if (!READ.has(member) && !LEFT_OUT.has(member) && body[member] !== undefined) throw refused(member, `/${member}`, 'is Claude\'s own');
  }
  const chat: Json = { model: stringAt(body.model, '/model') };
  const messages: Json[] = [];
  const system = systemText(body.system);
  if (system !== null) messages.push({ role: 'system', content: system });
  if (!Array.isArray(body.messages)) throw invalid('/messages', 'must be a list');
  body.messages.forEach((message, i) => messages.push(...chatMessagesOf(objectAt(message, `/messages/${i}`), i)));
  chat.messages = messages;
  if (body.max_tokens !== undefined) chat[maxTokensField] = body.max_tokens;
  if (body.stop_sequences !== undefined) chat.stop = body.stop_sequences;
  if (body.temperature !== undefined) chat.temperature = body.temperature;
  if (body.top_p !== undefined) chat.top_p = body.top_p;
  if (body.tools !== undefined) chat.tools = toolsOf(body.tools);
  if (body.tool_choice !== undefined) Object.assign(chat, toolChoiceOf(objectAt(body.tool_choice, '/tool_choice')));
  if (body.metadata !== undefined && body.metadata !== null) {
    const metadata = objectAt(body.metadata, '/metadata');
    for (const key of Object.keys(metadata)) if (key !== 'user_id') throw refused(`metadata.${key}`, `/metadata/${key}`, 'is not among the metadata the messages API takes (user_id)');
    if (metadata.user_id !== undefined && metadata.user_id !== null) chat.user = stringAt(metadata.user_id, '/metadata/user_id');
  }
  const effort = effortOf(body.thinking);
  if (effort !== undefined) chat.reasoning_effort = effort;
  if (body.stream !== undefined && typeof body.stream !== 'boolean') throw invalid('/stream', 'must be a boolean');
  if (body.stream === true) chat.stream = true;
  return chat;
}

/** `system`: a string, or text blocks (joined by a blank line); null when there is none. */
function systemText(system: unknown): string | null {
  if (system === undefined || system === null) return null;
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) throw invalid('/system', 'must be a string or a list of text blocks');
  return system.map((block, i) => {
    const text = objectAt(block, `/system/${i}`);
    if (text.type !== 'text') throw refused(`system.${i}.type`, `/system/${i}/type`, 'is not a text block');
    return stringAt(text.text, `/system/${i}/text`);
  }).join('\n\n');
}

/** A turn as chat messages: an assistant turn as one message (its tool_use blocks as tool calls), a user turn's tool results as tool messages first, then its other blocks as one user message. */
function chatMessagesOf(message: Json, i: number): Json[] {
  const role = message.role;
  if (role !== 'user' && role !== 'assistant') throw invalid(`/messages/${i}/role`, 'must be "user" or "assistant"');
  for (const member of Object.keys(message)) if (member !== 'role' && member !== 'content') throw refused(`messages.${i}.${member}`, `/messages/${i}/${member}`, 'is not part of a message');
  const content = message.content;
  if (typeof content === 'string') return [{ role, content }];
  if (!Array.isArray(content)) throw invalid(`/messages/${i}/content`, 'must be a string or a list of blocks');
  const blocks = content.map((block, j) => objectAt(block, `/messages/${i}/content/${j}`));
  return role === 'assistant' ? [assistantOf(blocks, i)] : userOf(blocks, i);
}

function assistantOf(blocks: Json[], i: number): Json {
  const texts: string[] = [];
  const calls: Json[] = [];
  blocks.forEach((block, j) => {
    const at = `/messages/${i}/content/${j}`;
    switch (block.type) {
      case 'text':
        texts.push(stringAt(block.text, `${at}/text`));
        return;
      case 'tool_use':
        calls.push({ id: stringAt(block.id, `${at}/id`), type: 'function', function: { name: stringAt(block.name, `${at}/name`), arguments: JSON.stringify(block.input ?? {}) } });
        return;
      // Claude's signed reasoning of an earlier turn: another model neither reads nor verifies it.
      case 'thinking': case 'redacted_thinking':
        return;
      default:
        throw refused(`messages.${i}.content.${j}.type`, `${at}/type`, `is a block (${JSON.stringify(block.type)}) only Claude answers`);
    }
  });
  const message: Json = { role: 'assistant', content: texts.length === 0 ? null : texts.join('') };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

function userOf(blocks: Json[], i: number): Json[] {
  const results: Json[] = [];
  const parts: Json[] = [];
  blocks.forEach((block, j) => {
    const at = `/messages/${i}/content/${j}`;
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: stringAt(block.text, `${at}/text`) });
        return;
      case 'image':
        parts.push({ type: 'image_url', image_url: { url: imageUrlOf(objectAt(block.source, `${at}/source`), `${at}/source`) } });
        return;
      case 'tool_result':
        results.push({ role: 'tool', tool_call_id: stringAt(block.tool_use_id, `${at}/tool_use_id`), content: toolResultText(block.content, `${at}/content`) });
        return;
      default:
        throw refused(`messages.${i}.content.${j}.type`, `${at}/type`, `is a block (${JSON.stringify(block.type)}) the gateway does not map to a chat message (text, image and tool_result are)`);
    }
  });
  // The chat API wants a tool call's result right after the call: a turn's results come before its
  // words. One text block is the message's text; several stay apart, as parts (a coding agent sends
  // its reminders and the prompt as blocks of one turn).
  if (parts.length === 1 && parts[0]!.type === 'text') results.push({ role: 'user', content: parts[0]!.text });
  else if (parts.length > 0) results.push({ role: 'user', content: parts });
  return results;
}

function imageUrlOf(source: Json, at: string): string {
  if (source.type === 'base64') return `data:${stringAt(source.media_type, `${at}/media_type`)};base64,${stringAt(source.data, `${at}/data`)}`;
  if (source.type === 'url') return stringAt(source.url, `${at}/url`);
  throw refused('image source', `${at}/type`, `of type ${JSON.stringify(source.type)} (a file) is Claude's own`);
}

/** A tool result's content as the tool message's text: a string, or text blocks joined. */
function toolResultText(content: unknown, at: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalid(at, 'must be a string or a list of blocks');
  return content.map((block, k) => {
    const text = objectAt(block, `${at}/${k}`);
    if (text.type !== 'text') throw refused(`tool_result content ${JSON.stringify(text.type)}`, `${at}/${k}/type`, 'cannot be in a chat tool message, which holds text');
    return stringAt(text.text, `${at}/${k}/text`);
  }).join('');
}

function toolsOf(tools: unknown): Json[] {
  if (!Array.isArray(tools)) throw invalid('/tools', 'must be a list');
  return tools.map((value, i) => {
    const tool = objectAt(value, `/tools/${i}`);
    if (tool.type !== undefined && tool.type !== 'custom') throw refused(`tools.${i}.type`, `/tools/${i}/type`, `is a tool (${JSON.stringify(tool.type)}) Claude runs itself`);
    const fn: Json = { name: stringAt(tool.name, `/tools/${i}/name`), parameters: objectAt(tool.input_schema, `/tools/${i}/input_schema`) };
    if (tool.description !== undefined) fn.description = stringAt(tool.description, `/tools/${i}/description`);
    return { type: 'function', function: fn };
  });
}

function toolChoiceOf(choice: Json): Json {
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
  if (asked.type === 'adaptive' || asked.type === 'disabled') return undefined;
  if (asked.type !== 'enabled' || typeof asked.budget_tokens !== 'number') throw invalid('/thinking', 'must be {"type": "enabled", "budget_tokens": <tokens>}, {"type": "adaptive"} or {"type": "disabled"}');
  const budget = asked.budget_tokens;
  const efforts: Array<Exclude<ReasoningEffort, 'none'>> = ['low', 'medium', 'high', 'xhigh'];
  return efforts.find((effort) => budget <= THINKING_BUDGETS[effort]) ?? 'xhigh';
}
