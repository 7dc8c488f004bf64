// The request-log stage, outermost: once the route has an Outcome it writes what routing decided into
// the exchange's record (config, target, provider, retries, model, stream) and, for answers that
// carry token usage, taps the body so usage, the answering model and the cost are known once the
// answer completed. The record itself is finished and written by whoever owns the request (the
// server for HTTP, the batch runner for a line).
import type { Outcome } from '../../router/outcome.ts';
import type { UpstreamResponse } from '../../upstream/types.ts';
import type { Exchange } from '../exchange.ts';
import type { Stage, StageFn } from '../stage.ts';
import type { Services } from '../services.ts';
import { tapped } from '../body-tap.ts';
import { overriddenModel, requestedModel, sentParam } from '../request-model.ts';
import { countedUsage } from './counted-usage.ts';
import { SpokenLengthTap } from './spoken-length-tap.ts';
import { JsonUsageTap, SseUsageTap } from './usage-tap.ts';
import { estimatedUsage, isChatDialect } from './usage-of.ts';
import { EventStreamUsageTap } from './event-stream-usage-tap.ts';
import { type PricedApart, RealtimeUsageTap } from './realtime-usage-tap.ts';
import { EVENT_STREAM_TYPE } from '../../providers/cloudc/stream.ts';
import { estimateInputTokens, tokensOfBytes } from '../../core/token-estimate.ts';
import { redactBody } from '../../telemetry/redact.ts';
import { CACHE_STATUS, isCacheHit, recordedModel } from '../../core/request-record.ts';
import { meteredPassThrough, pathModel } from '../metered-pass-through.ts';
import { isEventStreamType } from '../../core/event-stream-type.ts';

const METERED = new Set(['chat', 'completions', 'embeddings']);
/** Operations metered although their endpoint is the pass-through: a Responses API call forwarded to the provider. */
const METERED_OPERATIONS = new Set(['createResponse']);
/**
 * Operations metered by the usage their answers report: token-billed transcription, image and
 * speech models report tokens (gpt-4o-transcribe, gpt-image-1; gpt-4o-mini-tts in a speech event
 * stream), whisper the seconds it heard. No token estimate stands in when an answer reports none: an
 * upload's audio or image bytes, and an image or audio answer, are not text to count tokens of. What
 * is billed per unit is counted from the request instead (counted-usage.ts): a DALL·E image's
 * images, the characters tts-1 speaks, and a transcription's minutes when its answer says nothing.
 */
const REPORTED_USAGE_OPERATIONS = new Set(['createTranscription', 'createTranslation', 'createImage', 'createImageEdit', 'createImageVariation', 'createSpeech']);
/** The speech API's answer format when the request names none. */
const DEFAULT_SPEECH_FORMAT = 'mp3';

export const logStage: Stage = {
  name: 'log',
  phase: 'request',
  prepare(_node, services, plan) {
    // Limits charge what answers used, so their routes meter answers even with the request log off.
    if (!services.recording && services.limits === null) return null;
    // Routers built from provider headers have no config of their own to name.
    const configId = plan.configId.startsWith('headers:') ? null : plan.configId;
    const fn: StageFn = (x, next) => next(x).then(
      (outcome) => recordOutcome(x, outcome, configId, services),
      (error: unknown) => recordAbandoned(x, error, configId, services),
    );
    return fn;
  },
};

function recordOutcome(x: Exchange, outcome: Outcome, configId: string | null, services: Services): Outcome {
  // Nothing reads this record (no log, metrics or trace) and no limit charges the answer: a route
  // whose gateway keeps limits but has no policy matching it pays nothing here.
  if (!services.recording && x.afterUsage === null) return outcome;
  const record = x.record;
  recordRequest(x, configId, services);
  record.targetPath = outcome.leafPath === '' ? null : outcome.leafPath;
  record.provider = outcome.provider === '' ? null : outcome.provider;
  record.retries = outcome.retries;
  if (outcome.error !== null) record.errorCode = outcome.error.code;
  const response = outcome.response;
  if (response === null) return outcome;
  // A WebSocket session the provider opened (a realtime API): its usage is in its events, and its input transcription is priced apart.
  if (response.status === 101 && x.options.webSocket !== null) {
    const tap: RealtimeUsageTap = new RealtimeUsageTap(record, () => priceAnswer(x, outcome.provider, services, tap.transcription()), services.logBodyBytes);
    return { ...outcome, response: tapped(response, tap) };
  }
  const contentType = response.headers['content-type'];
  const stream = isEventStreamType(contentType);
  const provider = outcome.provider;
  // A family's own chat call through the pass-through is metered like a chat, its usage read in its own dialect.
  const dialect = meteredPassThrough(x, provider) ?? 'vendor';
  // Cloud C's binary event stream (converse-stream, an invoke stream): a stream too.
  const eventDialect = dialect === 'converse' || dialect === 'messages' || dialect === 'invoke' ? dialect : null;
  const eventStream = eventDialect !== null && typeof contentType === 'string' && EVENT_STREAM_TYPE.test(contentType);
  record.stream = stream || eventStream;
  const metering = dialect !== 'vendor' ? 'estimated' : meteringOf(x);
  if (metering === null || response.status < 200 || response.status >= 300) return outcome;
  if (metering === 'reported' && !stream && !(typeof contentType === 'string' && contentType.includes('json'))) return meterUnreadAnswer(x, outcome, response, services);
  // An answer of a kind billed per unit that reported no tokens (a DALL·E image) is counted from its request.
  const price = metering === 'reported' ? (): void => priceReported(x, provider, services) : (): void => priceAnswer(x, provider, services);
  const bodyBytes = services.logBodyBytes;
  const estimate = metering === 'estimated' ? () => inputTokens(x) : null;
  const tap = eventStream
    ? new EventStreamUsageTap(record, eventDialect, () => inputTokens(x), price)
    : stream
    // Cloud B's :predict and cloud C's invoke never answer SSE: such a stream on their path is read as the vendor's.
    ? new SseUsageTap(record, estimate, price, bodyBytes, () => outcome.reportedUsage ?? x.upstreamTry?.reportedUsage, isChatDialect(dialect) ? dialect : 'vendor')
    : new JsonUsageTap(record, price, bodyBytes, dialect, response.headers);
  return { ...outcome, response: tapped(response, tap) };
}

/**
 * Audio, or a transcript as text: no usage in it to read, and megabytes not to hold for nothing.
 * Speech billed by its characters, and a transcript by its minutes, are charged as the answer
 * starts: it was generated. Speech of a model priced by the minute of what it says is read for its
 * length as it goes to the client.
 */
function meterUnreadAnswer(x: Exchange, outcome: Outcome, response: UpstreamResponse, services: Services): Outcome {
  const counted = countedUsage(x);
  if (counted === null) return outcome;
  const provider = outcome.provider;
  if (x.operationId === 'createSpeech' && services.pricesSpokenMinutes(pricedModel(x))) {
    const format = sentParam(x, 'response_format');
    return { ...outcome, response: tapped(response, new SpokenLengthTap(x.record, counted, typeof format === 'string' ? format : DEFAULT_SPEECH_FORMAT, () => priceAnswer(x, provider, services))) };
  }
  x.record.usage = counted;
  priceAnswer(x, provider, services);
  return outcome;
}

/**
 * The client left before any answer, and the route gave up with it: the record still says where the
 * request went. When the provider had the request and had not answered, its input is estimated,
 * priced and charged: the provider worked on the prompt (most go on to generate the answer too, and
 * bill it), so a client that leaves before each answer must not go uncounted by limits and budgets.
 */
function recordAbandoned(x: Exchange, error: unknown, configId: string | null, services: Services): never {
  if (!x.signal.aborted || (!services.recording && x.afterUsage === null)) throw error;
  const record = x.record;
  recordRequest(x, configId, services);
  const attempt = x.upstreamTry;
  if (attempt === null) throw error;
  record.targetPath = attempt.leafPath === '' ? null : attempt.leafPath;
  record.provider = attempt.provider === '' ? null : attempt.provider;
  record.retries = attempt.tries - 1;
  const metering = !attempt.awaitingAnswer ? null : meteredPassThrough(x, attempt.provider) !== null ? 'estimated' : meteringOf(x);
  if (metering === 'estimated') {
    record.usage = estimatedUsage(inputTokens(x), 0);
    priceUsage(x, attempt.provider, services);
  } else if (metering === 'reported') {
    // Images and speech billed per unit are known from the request: generated, and billed, all the
    // same. Estimated: the answer was never seen (a token-billed image model's is priced per image).
    const counted = countedUsage(x);
    if (counted !== null) {
      record.usage = { ...counted, estimated: true };
      priceUsage(x, attempt.provider, services);
    }
  }
  throw error;
}

/** What the record knows once the route ran, answered or not: the config, the model asked for, the request's body (when bodies are logged). */
function recordRequest(x: Exchange, configId: string | null, services: Services): void {
  const record = x.record;
  record.configId = configId;
  // A cache stage that ran has said HIT, MISS, …; any other routed request had no cache.
  if (record.cacheStatus === null) record.cacheStatus = CACHE_STATUS.disabled;
  if (record.modelRequested === null) {
    const model = requestedModel(x);
    record.modelRequested = model === null ? null : recordedModel(model);
  }
  if (services.logBodyBytes > 0 && x.rawBody !== null && x.rawBody.length > 0) record.requestBody = redactBody(x.rawBody, services.logBodyBytes);
}

/** How the request's usage is known: from its answer, else estimated; from its answer only; or not at all (null). */
function meteringOf(x: Exchange): 'estimated' | 'reported' | null {
  if (METERED.has(x.endpoint)) return 'estimated';
  const operation = x.operationId;
  if (operation === null) return null;
  if (METERED_OPERATIONS.has(operation)) return 'estimated';
  return REPORTED_USAGE_OPERATIONS.has(operation) ? 'reported' : null;
}

/**
 * An answer metered by what it reports: when it reported nothing, what its request asks for of a kind
 * billed per unit. A stream that ended without its usage (left, or cut, before its last event) has an
 * estimate: a token-billed image model's images priced per image.
 */
function priceReported(x: Exchange, provider: string, services: Services): void {
  const record = x.record;
  if (record.usage === null) {
    const counted = countedUsage(x);
    record.usage = counted !== null && record.stream ? { ...counted, estimated: true } : counted;
  }
  priceAnswer(x, provider, services);
}

/**
 * Prices an answer the client got. One that names no model (audio, a transcript as text, an image)
 * is recorded as of the model its target sent in place of the requested one (override_params), the
 * model it is priced as, so its record, its metrics and its cost name one model. A family's own call
 * through the pass-through names its model in its path, and its answer may not (converse's never
 * does): the path's model answered it.
 */
function priceAnswer(x: Exchange, provider: string, services: Services, apart: PricedApart | null = null): void {
  const sent = x.record.modelAnswered === null ? (overriddenModel(x) ?? pathModel(x)) : null;
  if (sent !== null) x.record.modelAnswered = recordedModel(sent);
  priceUsage(x, provider, services, apart);
}

/**
 * The model an answer is priced as: the one it names, else (an image, a transcription, a request its
 * client left) the one it was sent: the answering target's override_params model, else the request's.
 */
function pricedModel(x: Exchange): string | null {
  return x.record.modelAnswered ?? overriddenModel(x) ?? x.record.modelRequested;
}

/**
 * Prices the record's usage, with `apart` priced as its own model (a realtime session's input
 * transcription; unpriced, the whole cost is), and tells who waits for it (limits charge it).
 */
function priceUsage(x: Exchange, provider: string, services: Services, apart: PricedApart | null = null): void {
  const record = x.record;
  const model = pricedModel(x);
  let cost = record.usage === null ? null : services.costOf(provider, model, record.usage);
  if (apart !== null && cost !== null) {
    const more = services.costOf(provider, apart.model, apart.usage);
    cost = more === null ? null : cost + more;
  }
  // A hit cost the provider nothing; what the stored answer cost once is what the hit saved.
  if (isCacheHit(record.cacheStatus)) {
    record.savedCostUsd = cost;
    record.costUsd = cost === null ? null : 0;
  } else record.costUsd = cost;
  const listeners = x.afterUsage;
  if (listeners !== null) for (const listener of listeners) listener(record);
}

/**
 * The input tokens of a stream that reported no usage, estimated from the request's messages or
 * prompt. Asked only then, at the stream's end: a route that forwards the body unread has it parsed
 * here, once, instead of on every request.
 */
function inputTokens(x: Exchange): number {
  if (x.params !== undefined) return estimateInputTokens(x.params);
  const raw = x.rawBody;
  if (raw === null) return 0;
  try {
    return estimateInputTokens(JSON.parse(raw.toString('utf8')));
  } catch {
    return tokensOfBytes(raw.length);
  }
}
