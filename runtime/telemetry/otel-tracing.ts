// The OpenTelemetry side of tracing.ts: the JS SDK's tracer provider with a batching OTLP/HTTP
// exporter, W3C trace context in and out, and the GenAI semantic-convention attributes
// (gen_ai.operation.name, gen_ai.provider.name, gen_ai.request.model, gen_ai.response.model,
// gen_ai.usage.input_tokens / output_tokens). Loaded only when tracing is configured.
import { type Attributes, context, defaultTextMapGetter, defaultTextMapSetter, type Context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_SERVICE_NAME, ATTR_URL_PATH } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_OPERATION_NAME, ATTR_GEN_AI_PROVIDER_NAME, ATTR_GEN_AI_REQUEST_MODEL, ATTR_GEN_AI_RESPONSE_MODEL, ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS, ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS, ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
} from '@opentelemetry/semantic-conventions/incubating';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GatewayLogger } from '../core/log.ts';
import { Outage } from '../core/outage.ts';
import type { RequestRecord } from '../core/request-record.ts';
import { type AttemptSpan, genAiOperation, type RequestSpan, type Tracing, type TracingSettings } from './tracing.ts';

/** How long a stopping process waits for the collector to take its last spans. */
const SHUTDOWN_WAIT_MS = 2000;

/** The gateway's own trace id (x-gateway-trace-id), next to OpenTelemetry's. */
const ATTR_GATEWAY_TRACE_ID = 'gateway.trace_id';
const ATTR_GATEWAY_TARGET = 'gateway.target';
const ATTR_GATEWAY_CONFIG_ID = 'gateway.config_id';

export class OtelTracing implements Tracing {
  readonly #provider: BasicTracerProvider;
  readonly #tracer: Tracer;
  readonly #propagator = new W3CTraceContextPropagator();

  constructor(settings: TracingSettings, logger: GatewayLogger) {
    const exporter = reporting(new OTLPTraceExporter({ url: settings.endpoint }), new Outage(logger, 'tracing_export_failed', 'tracing_export_recovered'));
    this.#provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }),
      spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
    });
    this.#tracer = this.#provider.getTracer('model-gateway');
  }

  requestStarted(record: RequestRecord, traceparent: string | undefined): RequestSpan {
    const parent = traceparent === undefined ? ROOT_CONTEXT : this.#propagator.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter);
    const span = this.#tracer.startSpan(`${record.method} ${record.path}`, {
      kind: SpanKind.SERVER,
      startTime: record.createdAt,
      attributes: { [ATTR_HTTP_REQUEST_METHOD]: record.method, [ATTR_URL_PATH]: record.path, [ATTR_GATEWAY_TRACE_ID]: record.traceId },
    }, parent);
    return new OtelRequestSpan(this.#tracer, this.#propagator, span, trace.setSpan(parent, span));
  }

  /**
   * Sends the spans still batched, for SHUTDOWN_WAIT_MS at most: the exporter's own timeout is 10 s,
   * which a collector that accepts and never answers made every stop wait.
   */
  async shutdown(): Promise<void> {
    const gaveUp = sleep(SHUTDOWN_WAIT_MS, 'gave up', { ref: false });
    const flushed = this.#provider.shutdown();
    // Its failure after the wait is over is nobody's to handle (the stop went on without it).
    flushed.catch(() => undefined);
    if ((await Promise.race([flushed, gaveUp])) === 'gave up') {
      throw new Error(`the collector did not take the last spans within ${SHUTDOWN_WAIT_MS} ms; they are dropped`);
    }
  }
}

/**
 * The exporter, its results told to the log: the SDK drops spans a collector refused or never got
 * without a word, so a tracing setup that never worked looked like one that did. Logged once when
 * exports start failing and once when they go through again.
 */
function reporting(exporter: SpanExporter, outage: Outage): SpanExporter {
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        if (result.code === ExportResultCode.SUCCESS) outage.recovered();
        else outage.failed(() => ({ error: result.error?.message ?? 'the export failed', spans: spans.length, note: 'spans are dropped until the collector takes them again' }));
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

class OtelRequestSpan implements RequestSpan {
  readonly #tracer: Tracer;
  readonly #propagator: W3CTraceContextPropagator;
  readonly #span: Span;
  readonly #context: Context;
  /** The operation its attempts named: a pass-through call's, which its endpoint does not say. */
  #attemptOperation: string | null = null;

  constructor(tracer: Tracer, propagator: W3CTraceContextPropagator, span: Span, spanContext: Context) {
    this.#tracer = tracer;
    this.#propagator = propagator;
    this.#span = span;
    this.#context = spanContext;
  }

  attempt(target: string, provider: string, model: string | null, operation: string | null): AttemptSpan {
    const attributes: Attributes = { [ATTR_GEN_AI_PROVIDER_NAME]: provider, [ATTR_GATEWAY_TARGET]: target };
    if (model !== null) attributes[ATTR_GEN_AI_REQUEST_MODEL] = wellFormed(model);
    if (operation !== null) {
      attributes[ATTR_GEN_AI_OPERATION_NAME] = operation;
      this.#attemptOperation = operation;
    }
    const span = this.#tracer.startSpan(`upstream ${provider}`, { kind: SpanKind.CLIENT, attributes }, this.#context);
    const carrier: Record<string, string> = {};
    this.#propagator.inject(trace.setSpan(context.active(), span), carrier, defaultTextMapSetter);
    return {
      traceparent: carrier.traceparent,
      end(status: number) {
        if (status !== 0) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
        if (status === 0 || status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  }

  end(record: RequestRecord): void {
    const span = this.#span;
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, record.status);
    const operation = genAiOperation(record.operationId) ?? this.#attemptOperation;
    if (operation !== null) span.setAttribute(ATTR_GEN_AI_OPERATION_NAME, operation);
    if (record.provider !== null) span.setAttribute(ATTR_GEN_AI_PROVIDER_NAME, record.provider);
    if (record.modelRequested !== null) span.setAttribute(ATTR_GEN_AI_REQUEST_MODEL, wellFormed(record.modelRequested));
    if (record.modelAnswered !== null) span.setAttribute(ATTR_GEN_AI_RESPONSE_MODEL, wellFormed(record.modelAnswered));
    if (record.usage !== null) {
      span.setAttribute(ATTR_GEN_AI_USAGE_INPUT_TOKENS, record.usage.inputTokens);
      span.setAttribute(ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, record.usage.outputTokens);
      // Of the input tokens, those the provider read from its prompt cache.
      if (record.usage.cachedInputTokens > 0) span.setAttribute(ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, record.usage.cachedInputTokens);
      const written = record.usage.cacheCreationInputTokens ?? 0;
      if (written > 0) span.setAttribute(ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS, written);
    }
    if (record.configId !== null) span.setAttribute(ATTR_GATEWAY_CONFIG_ID, record.configId);
    if (record.targetPath !== null) span.setAttribute(ATTR_GATEWAY_TARGET, record.targetPath);
    if (record.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(record.createdAt + record.latencyMs);
  }
}

/**
 * A client's (or a provider's) text as an attribute: a lone surrogate half becomes U+FFFD, as
 * OpenTelemetry asks of exporters. OTLP strings must be valid UTF-8, and a collector refuses the
 * whole batch for one that is not, so one request's odd model name would drop every span sent with it.
 */
function wellFormed(text: string): string {
  return text.isWellFormed() ? text : text.toWellFormed();
}
