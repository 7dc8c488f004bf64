// invoke and invoke-with-response-stream on a Claude model, as the service answers them: the body is
// the messages API's (anthropic_version `bedrock-2023-05-31`, the model named by the path, not the
// body), checked and answered as the messages mock does (messagesReply); the answer is that JSON,
// and the stream the binary event framing whose `chunk` events each carry one messages-stream event
// as base64 `bytes`, the last (message_stop) with the service's invocation metrics added. Other
// models' own formats are not mocked (index.ts echoes their invoke).
import type { MockContext } from '../vendor/context.ts';
import { jsonObject } from '../vendor/context.ts';
import { sendBytes, sendEvents } from '../http/respond.ts';
import type { MockPromptCache } from '../http/prompt-cache.ts';
import { messagesReply, readMessagesRequest } from '../messages/messages.ts';
import { eventMessage } from './event-stream.ts';
import { cloudcHeaders, sendCloudcError } from './converse.ts';

const BEDROCK_VERSION = 'bedrock-2023-05-31';

/** Whether a model ID (or inference profile) names a Claude model, whose invoke speaks the messages API. */
export function isClaude(modelId: string): boolean {
  return modelId.includes('anthropic.claude');
}

/** The messages API's model name of a Claude model ID (`us.anthropic.claude-3-7-sonnet-20250219-v1:0` → `claude-3-7-sonnet-20250219`). */
export function claudeName(modelId: string): string {
  return modelId.slice(modelId.indexOf('anthropic.') + 'anthropic.'.length).replace(/-v\d+(?::\d+)?$/, '');
}

export async function invoke(ctx: MockContext, modelId: string, streamed: boolean, cache: MockPromptCache): Promise<void> {
  const body = jsonObject(ctx);
  if (body !== null && body.anthropic_version !== BEDROCK_VERSION) return sendCloudcError(ctx, 400, `anthropic_version: must be ${BEDROCK_VERSION}`);
  if (body !== null && 'model' in body) return sendCloudcError(ctx, 400, 'Malformed input request: extraneous key [model] is not permitted, please reformat your input and try again.');
  const request = await readMessagesRequest(body, (message) => sendCloudcError(ctx, 400, `Malformed input request: ${message}`), claudeName(modelId));
  if (request === null) return;
  const { message, events } = messagesReply(ctx, request, cache, 'msg_bdrk_');
  const usage = message.usage as { input_tokens: number; output_tokens: number };
  if (!streamed) {
    return sendBytes(ctx, 200, { ...cloudcHeaders(ctx), 'content-type': 'application/json', 'x-amzn-bedrock-input-token-count': String(usage.input_tokens), 'x-amzn-bedrock-output-token-count': String(usage.output_tokens) }, Buffer.from(JSON.stringify(message)));
  }
  const metrics = { inputTokenCount: usage.input_tokens, outputTokenCount: usage.output_tokens, invocationLatency: 12, firstByteLatency: 5 };
  const frames = events.map((event) => {
    const carried = event.type === 'message_stop' ? { ...event, 'amazon-bedrock-invocationMetrics': metrics } : event;
    return eventMessage('chunk', { bytes: Buffer.from(JSON.stringify(carried)).toString('base64'), p: 'abc' });
  });
  return sendEvents(ctx, 200, { ...cloudcHeaders(ctx), 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-content-type': 'application/json' }, frames);
}
