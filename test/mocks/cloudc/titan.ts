// invoke and invoke-with-response-stream on an Amazon Titan text model (`amazon.titan-text-…`), a
// model whose invoke speaks its vendor's own format, as the service answers it: the request's
// `inputText` (and `textGenerationConfig`), answered `{"inputTextTokenCount", "results": [{"tokenCount",
// "outputText", "completionReason"}]}` with the service's own counts in the
// `x-amzn-bedrock-input-token-count` / `-output-token-count` headers; streamed as `chunk` events each
// carrying one piece of the answer as base64 `bytes`, the last with the service's invocation metrics.
import type { MockContext } from '../vendor/context.ts';
import { jsonObject } from '../vendor/context.ts';
import { sendBytes, sendEvents } from '../http/respond.ts';
import { words } from '../vendor/reply-text.ts';
import { eventMessage } from './event-stream.ts';
import { cloudcHeaders, sendCloudcError } from './converse.ts';

/** Whether a model ID names an Amazon Titan text model. */
export function isTitanText(modelId: string): boolean {
  return modelId.startsWith('amazon.titan-text');
}

export async function invokeTitan(ctx: MockContext, streamed: boolean): Promise<void> {
  const body = jsonObject(ctx);
  if (body === null || typeof body.inputText !== 'string' || body.inputText === '') return sendCloudcError(ctx, 400, 'Malformed input request: #: required key [inputText] not found, please reformat your input and try again.');
  const inputTokens = words(body.inputText).length + 2;
  const pieces = ['Here is', ' a short', ` answer to: ${body.inputText}`];
  const outputTokens = words(pieces.join('')).length;
  if (!streamed) {
    const answer = { inputTextTokenCount: inputTokens, results: [{ tokenCount: outputTokens, outputText: pieces.join(''), completionReason: 'FINISH' }] };
    return sendBytes(ctx, 200, { ...cloudcHeaders(ctx), 'content-type': 'application/json', 'x-amzn-bedrock-input-token-count': String(inputTokens), 'x-amzn-bedrock-output-token-count': String(outputTokens) }, Buffer.from(JSON.stringify(answer)));
  }
  const metrics = { inputTokenCount: inputTokens, outputTokenCount: outputTokens, invocationLatency: 9, firstByteLatency: 4 };
  const frames = pieces.map((text, i) => {
    const last = i === pieces.length - 1;
    const chunk = { outputText: text, index: 0, totalOutputTextTokenCount: last ? outputTokens : null, completionReason: last ? 'FINISH' : null, inputTextTokenCount: i === 0 ? inputTokens : null, ...(last ? { 'amazon-bedrock-invocationMetrics': metrics } : {}) };
    return eventMessage('chunk', { bytes: Buffer.from(JSON.stringify(chunk)).toString('base64') });
  });
  return sendEvents(ctx, 200, { ...cloudcHeaders(ctx), 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-content-type': 'application/json' }, frames);
}
