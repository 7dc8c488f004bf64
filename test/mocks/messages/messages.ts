// POST /v1/messages as the messages API answers it: checks the body the way the API does
// (max_tokens required, roles, content blocks, tool_result ids answering the previous tool_use),
// then replies with the instance label and the prompt's words, a tool_use when tools are offered,
// JSON matching output_config.format's schema, a strict tool's input matching its schema (../http/structured-output.ts),
// a thinking block when thinking is on (enabled or adaptive, as the model's generation takes it: ../http/claude-thinking.ts; signed: a thinking block sent back with another text is
// refused, as the API refuses it, and so is a tool result answering an assistant turn that does not
// begin with its thinking), as JSON or as the API's SSE event sequence. Blocks
// marked with cache_control (at most four) are breakpoints of the instance's prompt cache, and the
// usage counts cache reads and writes apart from input_tokens, as the API does. Cloud C's invoke of a
// Claude model answers the same (messagesReply), framed its own way (test/mocks/cloudc/invoke.ts).
import type { MockContext } from '../vendor/context.ts';
import { jsonObject, vendorId } from '../vendor/context.ts';
import { replyFor, words } from '../vendor/reply-text.ts';
import { pieces, sendEvents } from '../http/respond.ts';
import { messagesHeaders, sendMessagesError, sendMessagesJson } from './errors.ts';
import { type MockPromptCache, type PromptItem, ttlSeconds } from '../http/prompt-cache.ts';
import { reasoningSignature, signsReasoning } from '../http/reasoning-signature.ts';
import { claudeThinkingRefusal, thinkingOn } from '../http/claude-thinking.ts';
import { instanceOf, structuredOutputRefusal } from '../http/structured-output.ts';

type Block = Record<string, any>;

/** What the API says of a document block it cannot read (a PDF in base64, or plain text), or null. */
function documentRefusal(block: Block): string | null {
  const source = block.source as Block | undefined;
  if (source?.type === 'base64') return source.media_type === 'application/pdf' && typeof source.data === 'string' ? null : "source.base64.media_type: Input should be 'application/pdf'";
  if (source?.type === 'text') return source.media_type === 'text/plain' && typeof source.data === 'string' ? null : "source.text.media_type: Input should be 'text/plain'";
  return "source: Input tag does not match any of the expected tags: 'base64', 'text', 'content', 'url', 'file'";
}

/** The ids a tool_use block and the tool_result answering it may have. */
const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

interface Turn {
  role: string;
  content: Block[];
}

interface Answer {
  model: string;
  blocks: Block[];
  stopReason: 'end_turn' | 'max_tokens' | 'tool_use';
  inputTokens: number;
  outputTokens: number;
}

function blocksOf(content: unknown): Block[] | null {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return null;
  return content.every((b) => typeof b === 'object' && b !== null && typeof b.type === 'string') ? (content as Block[]) : null;
}

function textOfBlocks(blocks: Block[]): string {
  return blocks.map((b) => (b.type === 'text' ? String(b.text) : b.type === 'tool_result' ? (typeof b.content === 'string' ? b.content : JSON.stringify(b.content)) : '')).join(' ');
}

export interface MessagesRequest {
  body: Record<string, any>;
  turns: Turn[];
  /** The model asked for: the body's, or (cloud C's invoke) the one its path names. */
  model: string;
}

/**
 * The API's own checks of `body`; `refuse` answers 400 with the message, and null is returned on a
 * bad body. `pathModel`: the model a path names (cloud C's invoke), whose body then names none.
 */
export async function readMessagesRequest(body: Record<string, any> | null, refuse: (message: string) => Promise<void>, pathModel: string | null = null, counting = false): Promise<MessagesRequest | null> {
  const bad = async (message: string) => {
    await refuse(message);
    return null;
  };
  if (body === null) return bad('There was an issue with the request body: it is not a JSON object.');
  const model = pathModel ?? body.model;
  if (typeof model !== 'string' || model === '') return bad('model: Field required');
  // A token count takes the create call's body without its max_tokens.
  if (!counting && (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1)) return bad('max_tokens: Field required');
  if (!Array.isArray(body.messages) || body.messages.length === 0) return bad('messages: at least one message is required');
  const thinking = claudeThinkingRefusal(model, body.thinking, body.output_config?.effort, counting ? undefined : body.max_tokens, body.temperature);
  if (thinking !== null) return bad(thinking);
  const format = body.output_config?.format;
  if (format !== undefined && format?.type !== 'json_schema') return bad(`output_config.format.type: Input should be 'json_schema'`);
  const structured = structuredOutputRefusal(model, format?.schema ?? null, Array.isArray(body.tools) ? body.tools.map((tool: Block) => tool?.strict) : []);
  if (structured !== null) return bad(structured);
  if (body.system !== undefined && typeof body.system !== 'string' && blocksOf(body.system) === null) return bad('system: Input should be a valid string or list of text blocks');
  const turns: Turn[] = [];
  for (const [i, message] of (body.messages as Record<string, unknown>[]).entries()) {
    if (message.role !== 'user' && message.role !== 'assistant') return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const content = blocksOf(message.content);
    if (content === null) return bad(`messages.${i}.content: Input should be a valid string or list of content blocks`);
    for (const [j, block] of content.entries()) {
      if (block.type === 'text' && (typeof block.text !== 'string' || block.text === '') && content.length > 1) return bad(`messages.${i}: text content blocks must be non-empty`);
      // The model's reasoning sent back must be the very text its signature was made over.
      if (block.type === 'thinking' && !signsReasoning(block.signature, block.thinking)) return bad(`messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`);
      if (block.type === 'tool_use' && (typeof block.id !== 'string' || typeof block.name !== 'string' || typeof block.input !== 'object')) return bad(`messages.${i}: tool_use blocks need id, name and an input object`);
      const documentProblem = block.type === 'document' ? documentRefusal(block) : null;
      if (documentProblem !== null) return bad(`messages.${i}.content.${j}.document.${documentProblem}`);
      if (block.type === 'tool_use' && !TOOL_ID.test(block.id as string)) return bad(`messages.${i}.content.${j}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      if (block.type === 'tool_result' && !TOOL_ID.test(String(block.tool_use_id))) return bad(`messages.${i}.content.${j}.tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      if (block.type === 'tool_result') {
        const previous = turns.at(-1);
        const called = previous?.role === 'assistant' && previous.content.some((b) => b.type === 'tool_use' && b.id === block.tool_use_id);
        if (!called) return bad(`messages.${i}: tool_result block(s) provided when previous message does not contain a matching tool_use (${block.tool_use_id})`);
      }
    }
    turns.push({ role: message.role, content });
  }
  // With thinking on, the assistant turn whose tool calls the last turn answers must begin with its thinking, as the model wrote it.
  const last = turns.at(-1)!;
  const answered = turns.at(-2);
  if (thinkingOn(body.thinking) && last.content.some((b) => b.type === 'tool_result') && answered?.role === 'assistant' && answered.content[0]?.type !== 'thinking' && answered.content[0]?.type !== 'redacted_thinking') {
    return bad(`messages.${turns.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(answered.content[0]?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`.`);
  }
  if (Array.isArray(body.tools)) {
    for (const tool of body.tools as Block[]) {
      if (typeof tool.name !== 'string' || typeof tool.input_schema !== 'object') return bad('tools: every tool needs a name and an input_schema');
    }
  }
  const marks = cacheMarks(body, turns);
  const wrong = marks.find((mark) => mark === null || typeof mark !== 'object' || mark.type !== 'ephemeral' || (mark.ttl !== undefined && mark.ttl !== '5m' && mark.ttl !== '1h'));
  if (wrong !== undefined) return bad(`cache_control: Input tag '${String(wrong?.type)}' found using 'type' does not match the expected tag 'ephemeral', or ttl is not '5m' or '1h'`);
  if (marks.length > 4) return bad(`A maximum of 4 blocks with cache_control may be provided. Found ${marks.length}.`);
  return { body, turns, model };
}

/** Every cache_control the request sets: on tools, system blocks and message blocks. */
function cacheMarks(body: Record<string, any>, turns: Turn[]): any[] {
  const holders: Block[] = [...(Array.isArray(body.tools) ? body.tools : []), ...(Array.isArray(body.system) ? body.system : []), ...turns.flatMap((turn) => turn.content)];
  return holders.filter((holder) => holder.cache_control !== undefined).map((holder) => holder.cache_control);
}

/** The prompt as the service caches it: tools, then system, then the turns' blocks; each piece as sent without its mark. */
function promptItems(body: Record<string, any>, turns: Turn[]): PromptItem[] {
  const item = (block: Block, text: string): PromptItem => {
    const { cache_control: mark, ...rest } = block;
    return { text: JSON.stringify(rest), tokens: words(text).length, ...(mark !== undefined ? { breakpointTtl: ttlSeconds(mark.ttl) } : {}) };
  };
  const system: Block[] = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : Array.isArray(body.system) ? body.system : [];
  return [
    ...(Array.isArray(body.tools) ? (body.tools as Block[]).map((tool) => item(tool, `${tool.name} ${tool.description ?? ''}`)) : []),
    ...system.map((block) => item(block, String(block.text ?? ''))),
    ...turns.flatMap((turn) => turn.content.map((block) => item(block, textOfBlocks([block])))),
  ];
}

/** The usage of an answer whose prompt the cache partly held: input_tokens count only what it neither read nor wrote. */
function usageWithCache(cache: MockPromptCache, body: Record<string, any>, turns: Turn[], total: number): Record<string, unknown> {
  const use = cache.use(promptItems(body, turns));
  const read = Math.min(use.read, total);
  const write = Math.min(use.write, total - read);
  const write1h = Math.min(use.write1h, write);
  // The split by TTL, as the service reports it beside the total.
  const creation = { ephemeral_5m_input_tokens: write - write1h, ephemeral_1h_input_tokens: write1h };
  return { input_tokens: total - read - write, cache_creation_input_tokens: write, cache_read_input_tokens: read, cache_creation: creation };
}

/** The request's input tokens, as the mock counts them: its turns' and system prompt's words, and 3 a turn. */
export function inputTokensOf({ body, turns }: MessagesRequest): number {
  let inputTokens = 0;
  for (const turn of turns) inputTokens += words(textOfBlocks(turn.content)).length + 3;
  if (typeof body.system === 'string') inputTokens += words(body.system).length;
  else if (Array.isArray(body.system)) inputTokens += words(textOfBlocks(body.system)).length;
  return inputTokens;
}

function answer(ctx: MockContext, request: MessagesRequest): Answer {
  const { body, turns, model } = request;
  const inputTokens = inputTokensOf(request);
  const last = turns.at(-1)!;
  const lastText = textOfBlocks(last.content);
  const blocks: Block[] = [];
  // Thinking restates the prompt, as a model's reasoning does: what a guardrail redacts shows up here too.
  if (thinkingOn(body.thinking)) {
    const thinking = `[${ctx.label}] thinking about: ${lastText}`;
    blocks.push({ type: 'thinking', thinking, signature: reasoningSignature(thinking) });
  }
  const tools = Array.isArray(body.tools) ? (body.tools as Block[]) : [];
  const answersTool = last.content.some((b) => b.type === 'tool_result');
  if (tools.length > 0 && body.tool_choice?.type !== 'none' && !answersTool) {
    const tool = body.tool_choice?.type === 'tool' ? tools.find((t) => t.name === body.tool_choice.name) ?? tools[0] : tools[0];
    // A strict tool's arguments match its input schema, as constrained decoding writes them.
    blocks.push({ type: 'tool_use', id: vendorId('toolu_'), name: tool.name, input: tool.strict === true ? instanceOf(tool.input_schema, lastText) : { query: lastText } });
    return { model, blocks, stopReason: 'tool_use', inputTokens, outputTokens: 12 };
  }
  const reply = replyFor(ctx.label, answersTool ? `tool said ${lastText}` : lastText, body.max_tokens);
  // An answer constrained to a schema is JSON matching it, its strings the reply.
  const schema = body.output_config?.format?.schema;
  blocks.push({ type: 'text', text: schema === undefined ? reply.tokens.join('') : JSON.stringify(instanceOf(schema, reply.tokens.join(''))) });
  return { model, blocks, stopReason: reply.finishReason === 'length' ? 'max_tokens' : 'end_turn', inputTokens, outputTokens: reply.tokens.length };
}

/** The answer to a checked request, as one message (JSON) and as the stream's events (each with its `type`). */
export function messagesReply(ctx: MockContext, request: MessagesRequest, cache: MockPromptCache, idPrefix = 'msg_'): { message: Record<string, unknown>; events: Array<Record<string, unknown> & { type: string }> } {
  const result = answer(ctx, request);
  const usage = usageWithCache(cache, request.body, request.turns, result.inputTokens);
  const id = vendorId(idPrefix);
  return {
    message: { id, type: 'message', role: 'assistant', model: result.model, content: result.blocks, stop_reason: result.stopReason, stop_sequence: null, usage: { ...usage, output_tokens: result.outputTokens } },
    events: [...events(id, result, usage)],
  };
}

export async function messages(ctx: MockContext, cache: MockPromptCache): Promise<void> {
  const request = await readMessagesRequest(jsonObject(ctx), (message) => sendMessagesError(ctx, 400, { message }));
  if (request === null) return;
  const reply = messagesReply(ctx, request, cache);
  if (request.body.stream === true) {
    const frames = reply.events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    await sendEvents(ctx, 200, { ...messagesHeaders(ctx), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' }, withStreamError(ctx, frames));
    return;
  }
  await sendMessagesJson(ctx, 200, reply.message);
}

/** POST /v1/messages/count_tokens: the create call's body, answered with its input's count. */
export async function countTokens(ctx: MockContext): Promise<void> {
  const request = await readMessagesRequest(jsonObject(ctx), (message) => sendMessagesError(ctx, 400, { message }), null, true);
  if (request === null) return;
  await sendMessagesJson(ctx, 200, { input_tokens: inputTokensOf(request) });
}

/** One event of the stream: its type, and its data. */
function streamEvent(type: string, data: object): Record<string, unknown> & { type: string } {
  return { type, ...data };
}

function* events(id: string, result: Answer, usage: object): Generator<Record<string, unknown> & { type: string }> {
  yield streamEvent('message_start', {
    message: { id, type: 'message', role: 'assistant', model: result.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
  });
  for (const [index, block] of result.blocks.entries()) {
    if (block.type === 'text') {
      yield streamEvent('content_block_start', { index, content_block: { type: 'text', text: '' } });
      if (index === 0) yield streamEvent('ping', {});
      for (const word of (block.text as string).match(/\S+|\s+\S+/g) ?? []) yield streamEvent('content_block_delta', { index, delta: { type: 'text_delta', text: word } });
    } else if (block.type === 'tool_use') {
      yield streamEvent('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      for (const part of pieces(JSON.stringify(block.input), 7)) yield streamEvent('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } });
    } else if (block.type === 'thinking') {
      yield streamEvent('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } });
      yield streamEvent('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: block.thinking } });
      yield streamEvent('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } });
    }
    yield streamEvent('content_block_stop', { index });
  }
  yield streamEvent('message_delta', { delta: { stop_reason: result.stopReason, stop_sequence: null }, usage: { output_tokens: result.outputTokens } });
  yield streamEvent('message_stop', {});
}

export function* withStreamError(ctx: MockContext, source: Iterable<string>): Generator<string> {
  const failure = ctx.step?.streamError;
  let sent = 0;
  for (const event of source) {
    if (failure !== undefined && sent >= failure.after) {
      yield `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: failure.type, message: failure.message } })}\n\n`;
      return;
    }
    yield event;
    sent += 1;
  }
}
