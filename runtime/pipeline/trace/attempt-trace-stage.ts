// One OpenTelemetry client span per upstream attempt, a child of the request's server span, whose
// traceparent goes to the provider in place of the client's. Not in any chain when tracing is off;
// an exchange without a server span (a batch line) is passed through untouched.
import { recordedModel } from '../../core/request-record.ts';
import { genAiOperation, type RequestSpan } from '../../telemetry/tracing.ts';
import type { Exchange } from '../exchange.ts';
import { type AnswerReading, isMistralChatBody, ownAnswerReading } from '../metered-pass-through.ts';
import type { Stage, StageFn } from '../stage.ts';
import { parseJsonBody } from '../../core/json-body.ts';

const REQUEST_SPAN = 'trace.requestSpan';
/**
 * The GenAI operation (gen_ai.operation.name) of a family's own call through the pass-through, by how
 * its answer is read: a chat, a text completion (a Mistral model's, as its body's form says), or
 * (cloud B's `:predict` on a text embedding model) embeddings; none for a token count, an image (the
 * conventions name no image operation), or another model's invoke in a format the gateway does not
 * read (it may be any kind of call).
 */
const OPERATIONS: Record<AnswerReading, string | null | ((body: unknown) => string)> = {
  messages: 'chat', generateContent: 'chat', converse: 'chat', nova: 'chat', openaiChat: 'chat',
  titan: 'text_completion', llama: 'text_completion', deepseek: 'text_completion',
  mistral: (body) => (isMistralChatBody(body) ? 'chat' : 'text_completion'),
  vectors: 'embeddings', counts: null, images: null,
};

function passThroughOperation(x: Exchange, provider: string): string | null {
  const reading = ownAnswerReading(x, provider);
  if (reading === null) return null;
  const operation = OPERATIONS[reading];
  return typeof operation === 'function' ? operation(bodyOf(x)) : operation;
}

/** The request's body: as a stage parsed it, else parsed here (a pass-through's body no stage read); null when it is not JSON. */
function bodyOf(x: Exchange): unknown {
  if (x.params !== undefined) return x.params;
  if (x.rawBody === null) return null;
  try {
    return parseJsonBody(x.rawBody);
  } catch {
    return null;
  }
}

/** Attaches the request's server span to its exchange (the server made it when the request arrived). */
export function withRequestSpan(x: Exchange, span: RequestSpan | null): Exchange {
  if (span !== null) x.state.set(REQUEST_SPAN, span);
  return x;
}

export const attemptTraceStage: Stage = {
  name: 'attempt-trace',
  phase: 'attempt',
  prepare(node, services) {
    if (!services.tracing || node.kind !== 'leaf') return null;
    const path = node.path;
    const fn: StageFn = (x, next) => {
      const span = x.state.get(REQUEST_SPAN) as RequestSpan | undefined;
      if (span === undefined) return next(x);
      const params = x.params as { model?: unknown } | undefined;
      const provider = node.provider ?? x.options.provider ?? 'unknown';
      const operation = genAiOperation(x.operationId) ?? passThroughOperation(x, provider);
      const attempt = span.attempt(path, provider, typeof params?.model === 'string' ? recordedModel(params.model) : x.record.modelRequested, operation);
      x.options.passedHeaders.traceparent = attempt.traceparent;
      return next(x).then(
        (outcome) => {
          attempt.end(outcome.response === null && outcome.error?.code === 'provider_unreachable' ? 0 : outcome.status);
          return outcome;
        },
        (error: unknown) => {
          attempt.end(0);
          throw error;
        },
      );
    };
    return fn;
  },
};
