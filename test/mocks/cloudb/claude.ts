// rawPredict and streamRawPredict on a Claude model (`…/publishers/anthropic/models/{model}`), as the
// service answers them: the body is the messages API's (anthropic_version `vertex-2023-10-16`, the
// model named by the path, not the body; `"stream": true` in the body of streamRawPredict, and only
// there), checked and answered as the messages mock does (messagesReply); the answer is that message,
// the stream its server-sent events (a scripted stream error included). The model's own refusals
// come in the messages API's error shape, the platform's (a stream asked of rawPredict) in Google's.
// The token count is rawPredict on one resource, `count-tokens`, whose body names the model.
import type { MockContext } from '../vendor/context.ts';
import { jsonObject } from '../vendor/context.ts';
import { sendBytes, sendEvents } from '../http/respond.ts';
import type { MockPromptCache } from '../http/prompt-cache.ts';
import { inputTokensOf, messagesReply, readMessagesRequest, withStreamError } from '../messages/messages.ts';
import { messagesHeaders, sendMessagesError } from '../messages/errors.ts';
import { sendCloudbError } from './generate.ts';

const VERTEX_VERSION = 'vertex-2023-10-16';

/** The messages API's name of a Claude model on the service (`claude-3-7-sonnet@20250219` → `claude-3-7-sonnet-20250219`). */
export function claudeNameOnVertex(model: string): string {
  return model.replace('@', '-');
}

/** The resource cloud B counts Claude's tokens on. */
const COUNT_TOKENS = 'count-tokens';

export async function rawPredict(ctx: MockContext, model: string, streamed: boolean, cache: MockPromptCache): Promise<void> {
  const body = jsonObject(ctx);
  if (model === COUNT_TOKENS) return countTokens(ctx, body);
  if (body !== null && (body.stream === true) !== streamed) {
    return sendCloudbError(ctx, 400, streamed ? 'streamRawPredict answers a body with "stream": true.' : 'rawPredict does not stream: call streamRawPredict.');
  }
  if (body !== null && body.anthropic_version !== VERTEX_VERSION) return sendMessagesError(ctx, 400, { message: `anthropic_version: must be ${VERTEX_VERSION}` });
  if (body !== null && 'model' in body) return sendMessagesError(ctx, 400, { message: 'model: Extra inputs are not permitted' });
  const request = await readMessagesRequest(body, (message) => sendMessagesError(ctx, 400, { message }), claudeNameOnVertex(model));
  if (request === null) return;
  const reply = messagesReply(ctx, request, cache, 'msg_vrtx_');
  if (!streamed) return sendBytes(ctx, 200, { ...messagesHeaders(ctx), 'content-type': 'application/json' }, Buffer.from(JSON.stringify(reply.message)));
  const frames = reply.events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  return sendEvents(ctx, 200, { ...messagesHeaders(ctx), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' }, withStreamError(ctx, frames));
}

async function countTokens(ctx: MockContext, body: Record<string, any> | null): Promise<void> {
  if (body !== null && body.anthropic_version !== undefined && body.anthropic_version !== VERTEX_VERSION) return sendMessagesError(ctx, 400, { message: `anthropic_version: must be ${VERTEX_VERSION}` });
  const model = body?.model;
  if (typeof model !== 'string' || !model.startsWith('claude-')) return sendMessagesError(ctx, 400, { message: 'model: a Claude model is required' });
  const { model: _named, anthropic_version: _version, ...rest } = body!;
  const request = await readMessagesRequest(rest, (message) => sendMessagesError(ctx, 400, { message }), claudeNameOnVertex(model), true);
  if (request === null) return;
  return sendBytes(ctx, 200, { ...messagesHeaders(ctx), 'content-type': 'application/json' }, Buffer.from(JSON.stringify({ input_tokens: inputTokensOf(request) })));
}
