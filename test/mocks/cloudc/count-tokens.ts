// count-tokens (POST /model/{id}/count-tokens), as the service answers it: `{"input": {"converse": …}}`
// checked as a converse body, or `{"input": {"invokeModel": {"body": <base64>}}}` of a Claude model
// checked as its invoke body (the messages API's); answered `{"inputTokens": n}`, counted as the
// answer to that call would count its input. Another model's invoke body is refused, as the service
// refuses models it cannot count for.
import type { MockContext } from '../vendor/context.ts';
import { jsonObject } from '../vendor/context.ts';
import { sendBytes } from '../http/respond.ts';
import { inputTokensOf, readMessagesRequest } from '../messages/messages.ts';
import { checkConverse, cloudcHeaders, converseInputTokens, sendCloudcError } from './converse.ts';
import { claudeName, isClaude } from './invoke.ts';

type Json = Record<string, any>;

function sendCount(ctx: MockContext, inputTokens: number): Promise<void> {
  return sendBytes(ctx, 200, { ...cloudcHeaders(ctx), 'content-type': 'application/json' }, Buffer.from(JSON.stringify({ inputTokens })));
}

function objectOf(value: unknown): Json | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
}

export async function countTokens(ctx: MockContext, modelId: string): Promise<void> {
  const input = objectOf(jsonObject(ctx)?.input);
  const converse = objectOf(input?.converse);
  if (converse !== null) {
    const body = await checkConverse(ctx, converse, modelId);
    return body === null ? undefined : sendCount(ctx, converseInputTokens(body));
  }
  const invoked = objectOf(input?.invokeModel);
  if (invoked === null || typeof invoked.body !== 'string') return sendCloudcError(ctx, 400, 'Malformed input request: input must hold converse or invokeModel.', 'ValidationException');
  if (!isClaude(modelId)) return sendCloudcError(ctx, 400, 'The provided model doesn\'t support counting tokens.', 'ValidationException');
  let body: Json | null;
  try {
    body = objectOf(JSON.parse(Buffer.from(invoked.body, 'base64').toString('utf8')));
  } catch {
    body = null;
  }
  const request = await readMessagesRequest(body, (message) => sendCloudcError(ctx, 400, `Malformed input request: ${message}`), claudeName(modelId));
  return request === null ? undefined : sendCount(ctx, inputTokensOf(request));
}
