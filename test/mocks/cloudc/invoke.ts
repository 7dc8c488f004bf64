// invoke and invoke-with-response-stream on a Claude model, as the service answers them: the body is
// the messages API's (anthropic_version `bedrock-2023-05-31`, the model named by the path, not the
// body), the answer the messages API's JSON, and the stream the binary event framing whose `chunk`
// events each carry one messages-stream event as base64 `bytes`; the last, message_stop, adds the
// service's invocation metrics. Other models' own formats are not mocked (index.ts echoes their invoke).
import type { MockContext } from '../vendor/context.ts';
import { jsonObject, vendorId } from '../vendor/context.ts';
import { replyFor, words } from '../vendor/reply-text.ts';
import { sendBytes, sendEvents } from '../http/respond.ts';
import { eventMessage } from './event-stream.ts';
import { cloudcHeaders, sendCloudcError } from './converse.ts';

type Json = Record<string, any>;

const BEDROCK_VERSION = 'bedrock-2023-05-31';

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((b: Json) => (typeof b?.text === 'string' ? b.text : '')).join(' ') : '';
}

/** The messages API's model name of a Claude model ID (`us.anthropic.claude-3-7-sonnet-20250219-v1:0` → `claude-3-7-sonnet-20250219`). */
function claudeName(modelId: string): string {
  return modelId.slice(modelId.indexOf('anthropic.') + 'anthropic.'.length).replace(/-v\d+(?::\d+)?$/, '');
}

/** Whether a model ID (or inference profile) names a Claude model, whose invoke speaks the messages API. */
export function isClaude(modelId: string): boolean {
  return modelId.includes('anthropic.claude');
}

export async function invoke(ctx: MockContext, modelId: string, streamed: boolean): Promise<void> {
  const body = jsonObject(ctx);
  if (body === null) return sendCloudcError(ctx, 400, 'Malformed input request, please reformat your input and try again.');
  if (body.anthropic_version !== BEDROCK_VERSION) return sendCloudcError(ctx, 400, `anthropic_version: must be ${BEDROCK_VERSION}`);
  if ('model' in body) return sendCloudcError(ctx, 400, 'Malformed input request: extraneous key [model] is not permitted, please reformat your input and try again.');
  if (typeof body.max_tokens !== 'number') return sendCloudcError(ctx, 400, 'Malformed input request: #: required key [max_tokens] not found, please reformat your input and try again.');
  const messages = body.messages as Json[] | undefined;
  if (!Array.isArray(messages) || messages.length === 0 || messages[0]?.role !== 'user') return sendCloudcError(ctx, 400, 'messages: the first message must use the "user" role');
  let inputTokens = words(textOf(body.system)).length;
  for (const message of messages) inputTokens += words(textOf(message.content)).length + 3;
  const reply = replyFor(ctx.label, textOf(messages.at(-1)!.content), body.max_tokens);
  const text = reply.tokens.join('');
  const outputTokens = reply.tokens.length;
  const model = claudeName(modelId);
  const id = vendorId('msg_bdrk_');
  const stopReason = reply.finishReason === 'length' ? 'max_tokens' : 'end_turn';
  if (!streamed) {
    return sendBytes(ctx, 200, { ...cloudcHeaders(ctx), 'content-type': 'application/json', 'x-amzn-bedrock-input-token-count': String(inputTokens), 'x-amzn-bedrock-output-token-count': String(outputTokens) }, Buffer.from(JSON.stringify({
      id, type: 'message', role: 'assistant', model, content: [{ type: 'text', text }], stop_reason: stopReason, stop_sequence: null,
      usage: { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: outputTokens },
    })));
  }
  const events: Json[] = [
    { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ...(text.match(/\S+|\s+\S+/g) ?? []).map((piece) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } })),
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } },
    { type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: inputTokens, outputTokenCount: outputTokens, invocationLatency: 12, firstByteLatency: 5 } },
  ];
  const frames = events.map((event) => eventMessage('chunk', { bytes: Buffer.from(JSON.stringify(event)).toString('base64'), p: 'abc' }));
  return sendEvents(ctx, 200, { ...cloudcHeaders(ctx), 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-content-type': 'application/json' }, frames);
}
