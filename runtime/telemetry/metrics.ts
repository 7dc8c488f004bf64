// Prometheus metrics (docs/observability.md lists each one). One registry per gateway (never
// prom-client's global one), fed from finished request records and from each upstream attempt; the
// gauges that describe state (circuits, pools, the log queue) are read when /metrics is scraped.
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { RequestRecord } from '../core/request-record.ts';
import { type CounterChild, CounterSeries, type HistogramChild, HistogramSeries } from './series.ts';
import { KEYLESS_RECORDS_PER_SECOND } from './keyless-records.ts';

/** Distinct values a client-influenced label (model, provider, config) may take before the rest fold into `other`. */
const MAX_LABEL_VALUES = 200;
const OTHER = 'other';
const MAX_CHILDREN = 10_000;
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** State read at scrape time, registered by whoever owns it. */
export interface MetricSources {
  /** Circuits that are not closed, by config id and target path. */
  circuits?: () => Iterable<{ configId: string; target: string; state: 'open' | 'half_open' }>;
  upstreamPools?: () => number;
  logQueue?: () => { queued: number; dropped: number; written: number; keylessDropped: number };
  /** The in-memory response cache: bytes and entries held (absent with Redis, which keeps its own). */
  cacheMemory?: () => { bytes: number; entries: number };
  semanticVectors?: () => number;
  /** Each backend the gateway depends on (store, redis), and whether it answers. */
  backends?: () => Iterable<[string, () => boolean]>;
  /** Requests being served and WebSocket sessions being carried (runtime/server/server.ts). */
  traffic?: () => Traffic;
}

/** What a server is serving now. */
export interface Traffic {
  /** Requests whose response has not closed yet (an open WebSocket session included). */
  inFlight: number;
  /** WebSocket sessions being carried: the provider's 101 went to the client, and neither side has ended. */
  sessions: number;
}

/** Keeps a label to a bounded set of values: the first MAX_LABEL_VALUES seen, then `other`. */
class BoundedLabel {
  readonly #seen = new Set<string>();

  of(value: string | null): string {
    if (value === null || value === '') return 'none';
    if (this.#seen.has(value)) return value;
    if (this.#seen.size >= MAX_LABEL_VALUES) return OTHER;
    this.#seen.add(value);
    return value;
  }
}

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #models = new BoundedLabel();
  readonly #providers = new BoundedLabel();
  readonly #requests: CounterSeries<'route_kind' | 'provider' | 'model' | 'status_class' | 'cache_status'>;
  readonly #duration: HistogramSeries<'route_kind' | 'provider' | 'status_class'>;
  readonly #upstream: HistogramSeries<'provider' | 'status_class'>;
  readonly #tokens: CounterSeries<'provider' | 'model' | 'type'>;
  readonly #cost: CounterSeries<'provider' | 'model'>;
  readonly #unpriced: CounterSeries<'provider' | 'model'>;
  readonly #retries: CounterSeries<'provider'>;
  readonly #fallbacks: CounterSeries<'provider'>;
  readonly #inlineConfigs: CounterSeries<'result'>;
  readonly #limitRefusals: CounterSeries<'code'>;
  readonly #limitFallbacks: CounterChild;
  readonly #breakerSyncFailures: CounterChild;
  readonly #usageAlerts: CounterSeries<'policy_id'>;
  readonly #cacheLookups: CounterSeries<'status'>;
  /** One child per cache status, made on first use. */
  readonly #cacheLookupChildren = new Map<string, CounterChild>();
  readonly #cacheStored: CounterChild;
  readonly #cacheSaved: CounterChild;
  readonly #cacheFailures: CounterSeries<'operation'>;
  readonly #embeddingFailures: CounterChild;
  readonly #embeddingSkips: CounterChild;

  readonly #sources: MetricSources = {};
  /** The series children of one kind of request, made once: one map lookup per request. */
  readonly #children = new Map<string, RequestChildren>();
  readonly #attempts = new Map<string, HistogramChild>();

  constructor(sources: MetricSources = {}) {
    this.addSources(sources);
    const self = this.#sources;
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'gateway_' });
    this.#requests = new CounterSeries('gateway_requests_total', 'Requests that reached the gateway, by route kind, provider, model, status class and cache status.', ['route_kind', 'provider', 'model', 'status_class', 'cache_status'] as const, this.registry);
    this.#duration = new HistogramSeries('gateway_request_duration_seconds', 'Time from a request\'s arrival to the end of its response.', ['route_kind', 'provider', 'status_class'] as const, LATENCY_BUCKETS, this.registry);
    this.#upstream = new HistogramSeries('gateway_upstream_duration_seconds', 'Time from sending an upstream attempt to its response headers (or its failure), by provider and status class.', ['provider', 'status_class'] as const, LATENCY_BUCKETS, this.registry);
    this.#tokens = new CounterSeries('gateway_tokens_total', 'Tokens answers used, by type: input (cached input, cache creation, audio and image input included), cached_input (cached_audio_input included), cache_creation, audio_input (not cached), cached_audio_input, image_input, output (audio output included), audio_output.', ['provider', 'model', 'type'] as const, this.registry);
    this.#cost = new CounterSeries('gateway_cost_usd_total', 'USD answers cost, from the pricing table.', ['provider', 'model'] as const, this.registry);
    this.#unpriced = new CounterSeries('gateway_unpriced_responses_total', 'Answers with token usage whose model the pricing table does not know (their cost counts as 0).', ['provider', 'model'] as const, this.registry);
    this.#retries = new CounterSeries('gateway_retries_total', 'Retries spent on the target that answered.', ['provider'] as const, this.registry);
    this.#fallbacks = new CounterSeries('gateway_fallbacks_total', 'Upstream attempts on another target after an earlier target of the same request failed.', ['provider'] as const, this.registry);
    this.#inlineConfigs = new CounterSeries('gateway_inline_config_cache_total', 'Inline configs (x-gateway-config JSON) found compiled (hit) or compiled (miss).', ['result'] as const, this.registry);
    this.#limitRefusals = new CounterSeries('gateway_limit_refusals_total', 'Requests (or attempts) refused by a policy: code rate_limited (429), usage_limit_exceeded (412) or limit_groups_full (429).', ['code'] as const, this.registry);
    this.#limitFallbacks = new CounterSeries('gateway_limit_counter_fallbacks_total', 'Limit checks counted in the process because Redis failed or did not answer (fail open).', [], this.registry).child({});
    this.#breakerSyncFailures = new CounterSeries('gateway_breaker_sync_failures_total', 'Circuit-breaker events Redis failed or did not answer; the process\'s own circuits went on alone.', [], this.registry).child({});
    this.#cacheLookups = new CounterSeries('gateway_cache_requests_total', 'Requests of a cached route and endpoint, by cache status: HIT, SEMANTIC HIT, MISS, SEMANTIC MISS, REFRESH.', ['status'] as const, this.registry);
    this.#cacheStored = new CounterSeries('gateway_cache_stored_bytes_total', 'Bytes of answers stored in the response cache.', [], this.registry).child({});
    this.#cacheSaved = new CounterSeries('gateway_cache_saved_usd_total', 'USD cache hits saved: what the stored answers cost when the provider gave them.', [], this.registry).child({});
    this.#cacheFailures = new CounterSeries('gateway_cache_backend_failures_total', 'Cache lookups (get) and stores (set) Redis failed or did not answer; the request went on uncached.', ['operation'] as const, this.registry);
    this.#embeddingFailures = new CounterSeries('gateway_cache_embedding_failures_total', 'Semantic-cache embedding calls that failed; each such request was a SEMANTIC MISS.', [], this.registry).child({});
    this.#embeddingSkips = new CounterSeries('gateway_cache_embedding_skipped_total', 'Semantic-cache lookups skipped without an embedding call while the embeddings route was failing; each such request was a SEMANTIC MISS.', [], this.registry).child({});
    new Gauge({ name: 'gateway_cache_semantic_vectors', help: 'Vectors the semantic-cache index of this process holds.', registers, collect() { this.set(self.semanticVectors?.() ?? 0); } });
    new Gauge({ name: 'gateway_cache_memory_bytes', help: 'Bytes the in-memory response cache holds.', registers, collect() { this.set(self.cacheMemory?.().bytes ?? 0); } });
    new Gauge({ name: 'gateway_cache_memory_entries', help: 'Answers the in-memory response cache holds.', registers, collect() { this.set(self.cacheMemory?.().entries ?? 0); } });
    this.#usageAlerts = new CounterSeries('gateway_usage_limit_alerts_total', 'Usage-limit alerts: a group crossed its policy\'s alert_threshold (once per period).', ['policy_id'] as const, this.registry);

    new Gauge({
      name: 'gateway_circuit_state', help: 'Circuits that are not closed: 1 open, 2 half-open (a closed circuit has no series).', labelNames: ['config', 'target'], registers,
      collect() {
        this.reset();
        if (self.circuits === undefined) return;
        for (const circuit of self.circuits()) this.set({ config: circuit.configId, target: circuit.target }, circuit.state === 'open' ? 1 : 2);
      },
    });
    new Gauge({
      name: 'gateway_backend_up', help: 'Whether a backend the gateway depends on answers (1) or not (0): store (the database), redis (with REDIS_URL). Requests are served either way.', labelNames: ['backend'], registers,
      collect() {
        this.reset();
        for (const [backend, up] of self.backends?.() ?? []) this.set({ backend }, up() ? 1 : 0);
      },
    });
    new Gauge({ name: 'gateway_requests_in_flight', help: 'Requests being served: arrived, and their response not closed yet (this scrape and open WebSocket sessions included).', registers, collect() { this.set(self.traffic?.().inFlight ?? 0); } });
    new Gauge({ name: 'gateway_websocket_sessions', help: 'WebSocket sessions (realtime APIs) being carried: opened by the provider\'s 101 and not yet ended by either side.', registers, collect() { this.set(self.traffic?.().sessions ?? 0); } });
    new Gauge({ name: 'gateway_upstream_pools', help: 'Upstream connection pools (one per provider origin).', registers, collect() { this.set(self.upstreamPools?.() ?? 0); } });
    new Gauge({ name: 'gateway_log_queue_records', help: 'Request records waiting to be written.', registers, collect() { this.set(self.logQueue?.().queued ?? 0); } });
    new Gauge({ name: 'gateway_log_dropped_records', help: 'Request records dropped since start because the queue was full or the store failed (monotonic).', registers, collect() { this.set(self.logQueue?.().dropped ?? 0); } });
    new Gauge({ name: 'gateway_log_keyless_dropped_records', help: `Records of requests without a key (401, unmatched paths, probes) not written because they came faster than ${KEYLESS_RECORDS_PER_SECOND} a second (monotonic).`, registers, collect() { this.set(self.logQueue?.().keylessDropped ?? 0); } });
  }

  /** Registers state read at scrape time (owners register when they start). */
  addSources(sources: MetricSources): void {
    Object.assign(this.#sources, sources);
  }

  /** Everything a finished record tells (called once per request and batch line). */
  readonly observeRecord = (record: RequestRecord): void => {
    const provider = this.#providers.of(record.provider);
    const model = this.#models.of(record.modelAnswered ?? record.modelRequested);
    const statusClass = statusClassOf(record.status);
    const cacheStatus = record.cacheStatus ?? 'none';
    const key = `${record.routeKind}\u0000${provider}\u0000${model}\u0000${statusClass}\u0000${cacheStatus}`;
    let children = this.#children.get(key);
    if (children === undefined) {
      children = {
        requests: this.#requests.child({ route_kind: record.routeKind, provider, model, status_class: statusClass, cache_status: cacheStatus }),
        duration: this.#duration.child({ route_kind: record.routeKind, provider, status_class: statusClass }),
        input: this.#tokens.child({ provider, model, type: 'input' }),
        output: this.#tokens.child({ provider, model, type: 'output' }),
        cachedInput: this.#tokens.child({ provider, model, type: 'cached_input' }),
        cacheCreation: this.#tokens.child({ provider, model, type: 'cache_creation' }),
        audioInput: this.#tokens.child({ provider, model, type: 'audio_input' }),
        cachedAudioInput: this.#tokens.child({ provider, model, type: 'cached_audio_input' }),
        audioOutput: this.#tokens.child({ provider, model, type: 'audio_output' }),
        imageInput: this.#tokens.child({ provider, model, type: 'image_input' }),
        cost: this.#cost.child({ provider, model }),
      };
      // Bounded like the labels themselves; a reset only costs the next requests a lookup.
      if (this.#children.size >= MAX_CHILDREN) this.#children.clear();
      this.#children.set(key, children);
    }
    children.requests.inc();
    children.duration.observe(record.latencyMs / 1000);
    if (record.retries > 0) this.#retries.inc({ provider }, record.retries);
    if (record.cacheStatus !== null && record.cacheStatus !== 'DISABLED') {
      let child = this.#cacheLookupChildren.get(record.cacheStatus);
      if (child === undefined) this.#cacheLookupChildren.set(record.cacheStatus, (child = this.#cacheLookups.child({ status: record.cacheStatus })));
      child.inc();
      if (record.savedCostUsd !== null && record.savedCostUsd > 0) this.#cacheSaved.inc(record.savedCostUsd);
    }
    const usage = record.usage;
    if (usage !== null) {
      children.input.inc(usage.inputTokens);
      children.output.inc(usage.outputTokens);
      if (usage.cachedInputTokens > 0) children.cachedInput.inc(usage.cachedInputTokens);
      const written = usage.cacheCreationInputTokens ?? 0;
      if (written > 0) children.cacheCreation.inc(written);
      if ((usage.audioInputTokens ?? 0) > 0) children.audioInput.inc(usage.audioInputTokens!);
      if ((usage.cachedAudioInputTokens ?? 0) > 0) children.cachedAudioInput.inc(usage.cachedAudioInputTokens!);
      if ((usage.audioOutputTokens ?? 0) > 0) children.audioOutput.inc(usage.audioOutputTokens!);
      if ((usage.imageInputTokens ?? 0) > 0) children.imageInput.inc(usage.imageInputTokens!);
      if (record.costUsd === null) this.#unpriced.inc({ provider, model });
      else children.cost.inc(record.costUsd);
    }
  };

  /** One upstream attempt: provider, status (0: no response: a connection failure), and seconds to its headers. */
  observeAttempt(provider: string, status: number, seconds: number, fallback: boolean): void {
    const label = this.#providers.of(provider);
    const statusClass = status === 0 ? 'error' : statusClassOf(status);
    const key = `${label}\u0000${statusClass}`;
    let child = this.#attempts.get(key);
    if (child === undefined) {
      if (this.#attempts.size >= MAX_CHILDREN) this.#attempts.clear();
      child = this.#upstream.child({ provider: label, status_class: statusClass });
      this.#attempts.set(key, child);
    }
    child.observe(seconds);
    if (fallback) this.#fallbacks.inc({ provider: label });
  }

  limitRefused(code: string): void {
    this.#limitRefusals.inc({ code });
  }

  limitCounterFallback(): void {
    this.#limitFallbacks.inc();
  }

  breakerSyncFailure(): void {
    this.#breakerSyncFailures.inc();
  }

  usageAlert(policyId: string): void {
    this.#usageAlerts.inc({ policy_id: policyId });
  }

  cacheStored(bytes: number): void {
    this.#cacheStored.inc(bytes);
  }

  cacheEmbeddingFailure(): void {
    this.#embeddingFailures.inc();
  }

  cacheEmbeddingSkipped(): void {
    this.#embeddingSkips.inc();
  }

  cacheBackendFailure(operation: 'get' | 'set'): void {
    this.#cacheFailures.inc({ operation });
  }

  inlineConfig(hit: boolean): void {
    this.#inlineConfigs.inc({ result: hit ? 'hit' : 'miss' });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

interface RequestChildren {
  requests: CounterChild;
  duration: HistogramChild;
  input: CounterChild;
  output: CounterChild;
  cachedInput: CounterChild;
  cacheCreation: CounterChild;
  audioInput: CounterChild;
  cachedAudioInput: CounterChild;
  audioOutput: CounterChild;
  imageInput: CounterChild;
  cost: CounterChild;
}

function statusClassOf(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
}
