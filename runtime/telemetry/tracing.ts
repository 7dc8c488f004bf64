// OpenTelemetry traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set: one server span per request and one
// client span per upstream attempt, with the GenAI semantic-convention attributes. Off by default at
// zero cost: without the variable the OpenTelemetry SDK is never even loaded (the implementation is
// imported on demand from otel-tracing.ts), and the request path sees `null`.
import type { GatewayLogger } from '../core/log.ts';
import type { RequestRecord } from '../core/request-record.ts';
import { envHttpUrl } from '../core/env-url.ts';

/** A request's server span, kept on its response until the response is done. */
export interface RequestSpan {
  /**
   * Starts a client span for one upstream attempt, as a child of this request's span. `operation`:
   * its GenAI operation name (genAiOperation), null for a call that is none; the request's span is
   * named by its endpoint's, else by its attempts'.
   */
  attempt(target: string, provider: string, model: string | null, operation: string | null): AttemptSpan;
  /** Ends the span with what the finished record says (status, provider, models, usage). */
  end(record: RequestRecord): void;
}

/** The GenAI operation name of each endpoint (the semantic conventions' well-known values). */
const OPERATIONS: ReadonlyMap<string, string> = new Map([
  ['createChatCompletion', 'chat'],
  ['createCompletion', 'text_completion'],
  ['createEmbedding', 'embeddings'],
  ['createResponse', 'chat'],
]);

/** The GenAI operation name (gen_ai.operation.name) of an endpoint's operationId; null for one that is no model call. */
export function genAiOperation(operationId: string | null): string | null {
  return operationId === null ? null : OPERATIONS.get(operationId) ?? null;
}

export interface AttemptSpan {
  /** The W3C traceparent that names this attempt's span: sent to the provider. */
  readonly traceparent: string;
  end(status: number): void;
}

export interface Tracing {
  /** `traceparent`: the client's W3C header, if any (its trace becomes the parent). */
  requestStarted(record: RequestRecord, traceparent: string | undefined): RequestSpan;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

export interface TracingSettings {
  /** OTEL_EXPORTER_OTLP_ENDPOINT (the collector's base URL; spans go to /v1/traces) or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the full URL). */
  endpoint: string;
  serviceName: string;
}

export function tracingSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): TracingSettings | null {
  if (env.OTEL_SDK_DISABLED === 'true') return null;
  // Checked here, by name: the exporter's own error quoted the value and named no variable.
  const traces = envHttpUrl(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = traces === null ? envHttpUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') : null;
  const endpoint = traces !== null ? traces.href : base !== null ? `${base.href.replace(/\/+$/, '')}/v1/traces` : null;
  if (endpoint === null) return null;
  return { endpoint, serviceName: env.OTEL_SERVICE_NAME || 'model-gateway' };
}

/** The OpenTelemetry implementation, loaded only when tracing is configured. */
export async function startTracing(settings: TracingSettings | null, logger: GatewayLogger): Promise<Tracing | null> {
  if (settings === null) return null;
  const { OtelTracing } = await import('./otel-tracing.ts');
  return new OtelTracing(settings, logger);
}
