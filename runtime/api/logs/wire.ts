// A request record as the logs API shows it (schema/resources/request-log.json): snake_case, times
// in Unix seconds and milliseconds.
import type { RequestLog } from '../../../generated/types.ts';
import { hookResultsWire } from '../../core/hook-results-wire.ts';
import type { RequestRecord } from '../../core/request-record.ts';

export function requestLogWire(record: RequestRecord): RequestLog {
  const usage = record.usage;
  return {
    object: 'request_log',
    id: record.id,
    trace_id: record.traceId,
    created_at: Math.floor(record.createdAt / 1000),
    created_at_ms: record.createdAt,
    method: record.method,
    path: record.path,
    route_kind: record.routeKind,
    operation: record.operationId,
    source: record.source,
    status: record.status,
    error_code: record.errorCode,
    latency_ms: record.latencyMs,
    ttfb_ms: record.ttfbMs,
    config_id: record.configId,
    target: record.targetPath,
    provider: record.provider,
    model_requested: record.modelRequested,
    model_answered: record.modelAnswered,
    retries: record.retries,
    cache_status: record.cacheStatus,
    stream: record.stream,
    usage: usage === null ? null : { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, cached_input_tokens: usage.cachedInputTokens, cache_creation_input_tokens: usage.cacheCreationInputTokens ?? 0, cache_creation_1h_input_tokens: usage.cacheCreation1hInputTokens ?? 0, audio_input_tokens: usage.audioInputTokens ?? 0, audio_output_tokens: usage.audioOutputTokens ?? 0, cached_audio_input_tokens: usage.cachedAudioInputTokens ?? 0, image_input_tokens: usage.imageInputTokens ?? 0, audio_seconds: usage.audioSeconds ?? 0, images: usage.images ?? 0, image_size: usage.imageSize ?? null, image_quality: usage.imageQuality ?? null, input_characters: usage.inputCharacters ?? 0, audio_output_seconds: usage.audioOutputSeconds ?? 0, total_tokens: usage.totalTokens, estimated: usage.estimated },
    cost_usd: record.costUsd,
    saved_cost_usd: record.savedCostUsd,
    metadata: { ...record.metadata },
    api_key_id: record.apiKeyId,
    workspace_id: record.workspaceId,
    organisation_id: record.organisationId,
    hook_results: record.hookResults === null ? null : { ...hookResultsWire(record.hookResults) },
    feedback: record.feedback,
    request_body: record.requestBody,
    response_body: record.responseBody,
  };
}
