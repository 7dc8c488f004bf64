// The semantic cache's embedding call: the request's text goes through the embeddings route the
// server names (GATEWAY_SEMANTIC_CACHE_EMBEDDINGS: a saved config id, resolved on each call so an
// edit applies, or an inline config) with GATEWAY_SEMANTIC_CACHE_MODEL, as the same caller, under
// the request's trace id and metadata. Any failure (no route, an error answer, no vector, a timeout)
// is null: the request is then a SEMANTIC MISS, never an error; and the next requests skip the call
// for a while (embedding-backoff.ts).
import { newRequestRecord } from '../../core/request-record.ts';
import type { GatewayLogger } from '../../core/log.ts';
import type { ConfigResolver } from '../../inference/config-resolver.ts';
import type { SemanticSettings } from '../../pipeline/cache/cache-settings.ts';
import type { Embedder } from '../../pipeline/cache/semantic-cache.ts';
import { newExchange } from '../../pipeline/new-exchange.ts';
import { gatewayOptions } from '../../pipeline/options.ts';
import type { GatewayMetrics } from '../../telemetry/metrics.ts';
import { GatewayError } from '../../core/errors.ts';
import { EmbeddingBackoff, type EmbeddingCall } from './embedding-backoff.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';

/** Longest wait for one embedding; past it the request goes on as a SEMANTIC MISS. */
const EMBED_TIMEOUT_MS = 10_000;
const PATH = '/v1/embeddings';

export function routeEmbedder(resolver: ConfigResolver, settings: SemanticSettings, logger: GatewayLogger, metrics: GatewayMetrics | null, backoff = new EmbeddingBackoff()): Embedder {
  let lastFailure = '';
  const failed = (reason: string, x: { signal: AbortSignal }, call: EmbeddingCall): null => {
    if (x.signal.aborted) {
      backoff.released(call);
      return null;
    }
    backoff.failed(call);
    metrics?.cacheEmbeddingFailure();
    // Once per distinct reason: a broken embeddings route fails every request the same way.
    if (reason !== lastFailure) {
      lastFailure = reason;
      logger.warn('semantic_cache_embedding_failed', { reason, note: 'requests are SEMANTIC MISS until embeddings answer; the next ones skip embedding for 1 s, doubling to 30 s while it goes on failing' });
    }
    return null;
  };

  return async (text, x) => {
    const call = backoff.tryCall();
    if (call === null) {
      metrics?.cacheEmbeddingSkipped();
      return null;
    }
    const body = { model: settings.model, input: text };
    try {
      const router = resolver.fromConfigHeader(settings.embeddings);
      const record = newRequestRecord(x.record.traceId, 'POST', PATH, x.source);
      const parsed = { traceId: x.options.traceId, metadata: x.options.metadata, requestTimeoutMs: null, forwardHeaders: [], cacheForceRefresh: false, cacheNamespace: null };
      const exchange = newExchange({
        source: x.source,
        handler: 'inference.embeddings',
        operationId: 'createEmbedding',
        method: 'POST',
        upstreamPath: '/embeddings',
        pathname: PATH,
        rawBody: Buffer.from(JSON.stringify(body)),
        options: gatewayOptions({ 'content-type': 'application/json' }, parsed, router),
        plan: router.plan,
        caller: x.caller,
        record,
        signal: AbortSignal.any([x.signal, AbortSignal.timeout(EMBED_TIMEOUT_MS)]),
        readJson: () => Promise.resolve(body),
      });
      const outcome = await router.run(exchange);
      const response = outcome.response;
      if (response === null) return failed(outcome.error?.code ?? 'no answer', x, call);
      if (response.status < 200 || response.status >= 300) {
        response.discard();
        return failed(`status ${response.status}`, x, call);
      }
      const answer = parseJson((await response.readAll()).toString('utf8')) as { data?: Array<{ embedding?: unknown }> };
      const embedding = answer.data?.[0]?.embedding;
      if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((v) => typeof v === 'number' && Number.isFinite(v))) return failed('the answer has no embedding', x, call);
      lastFailure = '';
      backoff.succeeded(call);
      return Float32Array.from(embedding as number[]);
    } catch (error) {
      return failed((error as Error).message, x, call);
    }
  };
}

/**
 * Refuses a start whose embeddings route cannot resolve: an inline config that does not compile, or
 * a saved config id no config has. Called once the saved configs are loaded. Without it every
 * semantic request became a SEMANTIC MISS, found in a metric long after the deploy.
 */
export function checkEmbeddingsRoute(resolver: ConfigResolver, settings: SemanticSettings): void {
  try {
    resolver.fromConfigHeader(settings.embeddings);
  } catch (error) {
    const listed = error instanceof GatewayError ? ((error.details?.errors as Array<{ code: string; pointer: string; message: string }> | undefined) ?? []) : [];
    const lines = listed.map((e) => `\n  ${e.code}  ${e.pointer || '/'}  ${e.message}`).join('');
    throw new Error(`GATEWAY_SEMANTIC_CACHE_EMBEDDINGS names no usable embeddings route: ${(error as Error).message}${lines}`);
  }
}
