// converse and converse-stream as the service answers them. Bodies are checked the way the service
// does (alternating roles starting with user, non-empty content, toolResult answering the previous
// toolUse, toolConfig present when tools appear), and the reply is the instance label and the
// prompt's words, or a toolUse when tools are configured, after a signed reasoning block when a
// Claude model's thinking is asked for; JSON matching outputConfig.textFormat's schema, a strict tool's
// input matching its schema (../http/structured-output.ts) (thinking enabled or adaptive, as the model's generation takes it:
// ../http/claude-thinking.ts; a reasoning block sent back with another text is refused, and
// so is a tool result answering an assistant turn that does not begin with its reasoning).
// Streams use the binary event framing.
// cachePoint blocks (at most four) are breakpoints of the instance's prompt cache; the usage then
// counts cache reads and writes apart from inputTokens, as the service does.
import type { MockContext } from '../vendor/context.ts';
import { jsonObject, vendorId } from '../vendor/context.ts';
import { replyFor, words } from '../vendor/reply-text.ts';
import { pieces, sendBytes, sendEvents } from '../http/respond.ts';
import { eventMessage, exceptionMessage } from './event-stream.ts';
import { type MockPromptCache, type PromptItem, ttlSeconds } from '../http/prompt-cache.ts';
import { reasoningSignature, signsReasoning } from '../http/reasoning-signature.ts';
import { claudeThinkingRefusal, thinkingOn } from '../http/claude-thinking.ts';
import { instanceOf, structuredOutputRefusal } from '../http/structured-output.ts';

type Json = Record<string, any>;

/** A document block's formats, and the names it may have. */
const DOCUMENT_FORMATS = new Set(['pdf', 'csv', 'doc', 'docx', 'xls', 'xlsx', 'html', 'txt', 'md']);
const DOCUMENT_NAME = /^[a-zA-Z0-9\-()[\]]+(?: [a-zA-Z0-9\-()[\]]+)*$/;

/** The ids a toolUse block and the toolResult answering it may have (at most 64 characters). */
const TOOL_USE_ID = /^[a-zA-Z0-9_-]{1,64}$/;

const ERROR_TYPES: Record<number, string> = {
  400: 'ValidationException', 403: 'AccessDeniedException', 404: 'ResourceNotFoundException', 408: 'ModelTimeoutException',
  424: 'ModelErrorException', 429: 'ThrottlingException', 500: 'InternalServerException', 503: 'ServiceUnavailableException',
};

export function cloudcHeaders(ctx: MockContext): Record<string, string> {
  return { 'x-amzn-requestid': vendorId('rid-'), 'x-mock-instance': ctx.label };
}

export function sendCloudcError(ctx: MockContext, status: number, message?: string, errorType?: string): Promise<void> {
  const type = errorType ?? ERROR_TYPES[status] ?? (status >= 500 ? 'InternalServerException' : 'ValidationException');
  return sendBytes(ctx, status, {
    ...cloudcHeaders(ctx),
    'content-type': 'application/json',
    'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
  }, Buffer.from(JSON.stringify({ message: message ?? `${type}: the service answered ${status}.` })));
}

function textOf(content: Json[]): string {
  return content.map((b) => (typeof b.text === 'string' ? b.text : b.toolResult !== undefined ? (b.toolResult.content as Json[]).map((c) => c.text ?? JSON.stringify(c.json)).join(' ') : '')).join(' ');
}

async function parse(ctx: MockContext, modelId: string): Promise<Json | null> {
  return checkConverse(ctx, jsonObject(ctx), modelId);
}

/** The service's checks of a converse body (a converse call's, or the one a token count wraps); answers 400 and returns null on a bad one. */
export async function checkConverse(ctx: MockContext, body: Json | null, modelId: string): Promise<Json | null> {
  const bad = async (message: string) => {
    await sendCloudcError(ctx, 400, message);
    return null;
  };
  if (body === null) return bad('Malformed input request, please reformat your input and try again.');
  if (!Array.isArray(body.messages) || body.messages.length === 0) return bad('A conversation must start with a user message. Try again with a conversation that starts with a user message.');
  const thinking = claudeThinkingRefusal(modelId, body.additionalModelRequestFields?.thinking, body.outputConfig?.effort, body.inferenceConfig?.maxTokens, body.inferenceConfig?.temperature);
  if (thinking !== null) return bad(`The model returned the following errors: ${thinking}`);
  // outputConfig.textFormat: the schema is JSON text, as converse takes it.
  const textFormat = body.outputConfig?.textFormat;
  let answerSchema: unknown = null;
  if (textFormat !== undefined) {
    if (textFormat?.type !== 'json_schema' || typeof textFormat.structure?.jsonSchema?.schema !== 'string') return bad('1 validation error detected: Value at \'outputConfig.textFormat\' failed to satisfy constraint: type must be json_schema and structure.jsonSchema.schema a string');
    try {
      answerSchema = JSON.parse(textFormat.structure.jsonSchema.schema);
    } catch {
      return bad('The provided JSON schema is not valid JSON.');
    }
  }
  const toolSpecs: Json[] = (body.toolConfig?.tools ?? []).filter((t: Json) => t?.toolSpec !== undefined).map((t: Json) => t.toolSpec);
  const structured = structuredOutputRefusal(modelId, answerSchema, toolSpecs.map((spec) => spec.strict));
  if (structured !== null) return bad(`The model returned the following errors: ${structured}`);
  let previous: Json | null = null;
  let usesTools = false;
  for (const [i, message] of (body.messages as Json[]).entries()) {
    if (message.role !== 'user' && message.role !== 'assistant') return bad(`messages.${i}.role: must be user or assistant`);
    if (i === 0 && message.role !== 'user') return bad('A conversation must start with a user message. Try again with a conversation that starts with a user message.');
    if (previous !== null && previous.role === message.role) return bad('A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.');
    if (!Array.isArray(message.content) || message.content.length === 0) return bad(`The content field in the Message object at messages.${i} is empty. Add a ContentBlock object to the content field and try again.`);
    for (const [j, block] of (message.content as Json[]).entries()) {
      if (block.toolUse !== undefined || block.toolResult !== undefined) usesTools = true;
      const toolUseId = block.toolUse?.toolUseId ?? block.toolResult?.toolUseId;
      if (toolUseId !== undefined && !TOOL_USE_ID.test(String(toolUseId))) return bad(`1 validation error detected: Value '${String(toolUseId)}' at 'messages.${i + 1}.member.content.${j + 1}.member.${block.toolUse !== undefined ? 'toolUse' : 'toolResult'}.toolUseId' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+`);
      if (block.toolResult !== undefined) {
        const called = previous?.role === 'assistant' && (previous.content as Json[]).some((b) => b.toolUse?.toolUseId === block.toolResult.toolUseId);
        if (!called) return bad('The number of toolResult blocks at messages.' + i + '.content exceeds the number of toolUse blocks of previous turn.');
      }
      if (block.image !== undefined && (typeof block.image.format !== 'string' || typeof block.image.source?.bytes !== 'string')) return bad('image blocks need a format and source bytes');
      if (block.document !== undefined) {
        if (!DOCUMENT_FORMATS.has(block.document.format) || typeof block.document.source?.bytes !== 'string') return bad(`1 validation error detected: Value at 'messages.${i + 1}.member.content.${j + 1}.member.document' failed to satisfy constraint: a format of ${[...DOCUMENT_FORMATS].join(', ')} and source bytes`);
        if (typeof block.document.name !== 'string' || !DOCUMENT_NAME.test(block.document.name)) return bad('The document file name can only contain alphanumeric characters, whitespace characters, hyphens, parentheses, and square brackets. The name can\'t contain more than one consecutive whitespace character.');
      }
      // The model's reasoning sent back must be the very text its signature was made over (the model's own check, relayed).
      const reasoning = block.reasoningContent?.reasoningText;
      if (reasoning !== undefined && !signsReasoning(reasoning.signature, reasoning.text)) return bad(`The model returned the following errors: messages.${i}.content.${(message.content as Json[]).indexOf(block)}: Invalid \`signature\` in \`thinking\` block`);
    }
    previous = message;
  }
  if (usesTools && body.toolConfig === undefined) return bad('The toolConfig field must be defined when using toolUse and toolResult content blocks.');
  // With a Claude model's thinking on, the assistant turn whose tool calls the last turn answers must begin with its reasoning (the model's own check, relayed).
  const turns = body.messages as Json[];
  const answered = turns.at(-2);
  const answersTools = (turns.at(-1)!.content as Json[]).some((b) => b.toolResult !== undefined);
  if (thinkingOn(body.additionalModelRequestFields?.thinking) && answersTools && answered?.role === 'assistant' && (answered.content as Json[])[0]?.reasoningContent === undefined) {
    return bad(`The model returned the following errors: messages.${turns.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`tool_use\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`);
  }
  const points = promptPieces(body).filter((piece) => piece.cachePoint !== undefined).map((piece) => piece.cachePoint);
  if (points.some((point) => point?.type !== 'default' || (point.ttl !== undefined && point.ttl !== '5m' && point.ttl !== '1h'))) return bad('cachePoint: type must be default, and ttl 5m or 1h.');
  if (points.length > 4) return bad(`The number of cache checkpoints (${points.length}) exceeds the maximum of 4.`);
  if (promptPieces(body)[0]?.cachePoint !== undefined) return bad('A cachePoint must follow the content it caches.');
  return body;
}

/** The prompt's pieces in the order the service caches them: tools, system, then the turns' blocks (cachePoint entries among them). */
function promptPieces(body: Json): Json[] {
  return [...(body.toolConfig?.tools ?? []), ...(Array.isArray(body.system) ? body.system : []), ...(body.messages as Json[]).flatMap((m) => m.content as Json[])];
}

/** The pieces as the prompt cache reads them: a cachePoint is a breakpoint after the piece before it. */
function promptItems(body: Json): PromptItem[] {
  const items: PromptItem[] = [];
  for (const piece of promptPieces(body)) {
    if (piece.cachePoint !== undefined) {
      items[items.length - 1] = { ...items.at(-1)!, breakpointTtl: ttlSeconds(piece.cachePoint.ttl) };
      continue;
    }
    const text = piece.toolSpec !== undefined ? `${piece.toolSpec.name} ${piece.toolSpec.description ?? ''}` : textOf([piece]);
    items.push({ text: JSON.stringify(piece), tokens: words(text).length });
  }
  return items;
}

/** converse's usage: with cache points, inputTokens count only what the cache neither read nor wrote. */
function usageOf(cache: MockPromptCache, body: Json, result: Answer): Json {
  const total = result.inputTokens;
  const usage: Json = { inputTokens: total, outputTokens: result.outputTokens, totalTokens: total + result.outputTokens };
  const use = cache.use(promptItems(body));
  if (use.breakpoints === 0) return usage;
  const read = Math.min(use.read, total);
  const write = Math.min(use.write, total - read);
  const write1h = Math.min(use.write1h, write);
  // The writes by TTL, an hour's first, as the service lists them (empty when nothing was written).
  const cacheDetails = [...(write1h > 0 ? [{ ttl: '1h', inputTokens: write1h }] : []), ...(write - write1h > 0 ? [{ ttl: '5m', inputTokens: write - write1h }] : [])];
  return { ...usage, inputTokens: total - read - write, cacheReadInputTokens: read, cacheWriteInputTokens: write, cacheDetails };
}

interface Answer {
  blocks: Json[];
  stopReason: string;
  inputTokens: number;
  outputTokens: number;
}

/** A checked converse body's input tokens, as the mock counts them: its turns' and system prompt's words, and 3 a turn. */
export function converseInputTokens(body: Json): number {
  let inputTokens = 0;
  for (const m of body.messages as Json[]) inputTokens += words(textOf(m.content)).length + 3;
  if (Array.isArray(body.system)) inputTokens += words(textOf(body.system)).length;
  return inputTokens;
}

function answer(ctx: MockContext, body: Json): Answer {
  const messages = body.messages as Json[];
  const inputTokens = converseInputTokens(body);
  const last = messages.at(-1)!;
  const lastText = textOf(last.content);
  // A Claude model's extended thinking (asked for in additionalModelRequestFields): a signed reasoning block restating the prompt.
  const reasoning: Json[] = [];
  if (thinkingOn(body.additionalModelRequestFields?.thinking)) {
    const text = `[${ctx.label}] thinking about: ${lastText}`;
    reasoning.push({ reasoningContent: { reasoningText: { text, signature: reasoningSignature(text) } } });
  }
  const tools: Json[] = (body.toolConfig?.tools ?? []).filter((t: Json) => t.toolSpec !== undefined);
  const answersTool = (last.content as Json[]).some((b) => b.toolResult !== undefined);
  if (tools.length > 0 && !answersTool) {
    const named = body.toolConfig?.toolChoice?.tool?.name;
    const tool = tools.find((t) => t.toolSpec.name === named) ?? tools[0];
    const input = tool.toolSpec.strict === true ? instanceOf(tool.toolSpec.inputSchema.json, lastText) : { query: lastText };
    return { blocks: [...reasoning, { toolUse: { toolUseId: vendorId('tooluse_'), name: tool.toolSpec.name, input } }], stopReason: 'tool_use', inputTokens, outputTokens: 10 };
  }
  const reply = replyFor(ctx.label, answersTool ? `tool said ${lastText}` : lastText, body.inferenceConfig?.maxTokens ?? null);
  const schema = body.outputConfig?.textFormat?.structure?.jsonSchema?.schema;
  const text = typeof schema === 'string' ? JSON.stringify(instanceOf(JSON.parse(schema), reply.tokens.join(''))) : reply.tokens.join('');
  return { blocks: [...reasoning, { text }], stopReason: reply.finishReason === 'length' ? 'max_tokens' : 'end_turn', inputTokens, outputTokens: reply.tokens.length };
}

export async function converse(ctx: MockContext, modelId: string, streamed: boolean, cache: MockPromptCache): Promise<void> {
  const body = await parse(ctx, modelId);
  if (body === null) return;
  const result = answer(ctx, body);
  const usage = usageOf(cache, body, result);
  if (!streamed) {
    return sendBytes(ctx, 200, { ...cloudcHeaders(ctx), 'content-type': 'application/json' }, Buffer.from(JSON.stringify({
      output: { message: { role: 'assistant', content: result.blocks } },
      stopReason: result.stopReason,
      usage,
      metrics: { latencyMs: 12 },
    })));
  }
  return sendEvents(ctx, 200, { ...cloudcHeaders(ctx), 'content-type': 'application/vnd.amazon.eventstream' }, withStreamError(ctx, events(result, usage)));
}

/** Real events carry a padding field `p` of varying length; the gateway must ignore it. */
function* events(result: Answer, usage: Json): Generator<Buffer> {
  yield eventMessage('messageStart', { role: 'assistant', p: 'abcdefgh' });
  for (const [index, block] of result.blocks.entries()) {
    if (block.toolUse !== undefined) {
      yield eventMessage('contentBlockStart', { contentBlockIndex: index, start: { toolUse: { toolUseId: block.toolUse.toolUseId, name: block.toolUse.name } }, p: 'ab' });
      for (const part of pieces(JSON.stringify(block.toolUse.input), 6)) yield eventMessage('contentBlockDelta', { contentBlockIndex: index, delta: { toolUse: { input: part } }, p: 'abc' });
    } else if (block.reasoningContent !== undefined) {
      const { text, signature } = block.reasoningContent.reasoningText;
      for (const word of (text as string).match(/\S+|\s+\S+/g) ?? []) yield eventMessage('contentBlockDelta', { contentBlockIndex: index, delta: { reasoningContent: { text: word } }, p: 'ab' });
      yield eventMessage('contentBlockDelta', { contentBlockIndex: index, delta: { reasoningContent: { signature } }, p: 'abc' });
    } else {
      for (const word of (block.text as string).match(/\S+|\s+\S+/g) ?? []) yield eventMessage('contentBlockDelta', { contentBlockIndex: index, delta: { text: word }, p: 'abcd' });
    }
    yield eventMessage('contentBlockStop', { contentBlockIndex: index, p: 'a' });
  }
  yield eventMessage('messageStop', { stopReason: result.stopReason, p: 'abcdef' });
  yield eventMessage('metadata', { usage, metrics: { latencyMs: 12 }, p: 'abc' });
}

function* withStreamError(ctx: MockContext, source: Iterable<Buffer>): Generator<Buffer> {
  const failure = ctx.step?.streamError;
  let sent = 0;
  for (const event of source) {
    if (failure !== undefined && sent >= failure.after) {
      yield exceptionMessage(failure.type, failure.message);
      return;
    }
    yield event;
    sent += 1;
  }
}
