// Prometheus metrics (docs/observability.md lists each one). One registry per gateway (never
// prom-client's global one), fed from finished request records and from each upstream attempt; the
// gauges that describe state (circuits, pools, the log queue) are read when /metrics is scraped.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestRecord } from '../core/request-record.ts';

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
  logQueue?: () => { queued: number; dropped: number; written: number };
  /** The in-memory response cache: bytes and entries held (absent with Redis, which keeps its own). */
  cacheMemory?: () => { bytes: number; entries: number };
  semanticVectors?: () => number;
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
  readonly #requests: Counter<'route_kind' | 'provider' | 'model' | 'status_class' | 'cache_status'>;
  readonly #duration: Histogram<'route_kind' | 'provider' | 'status_class'>;
  readonly #upstream: Histogram<'provider' | 'status_class'>;
  readonly #tokens: Counter<'provider' | 'model' | 'type'>;
  readonly #cost: Counter<'provider' | 'model'>;
  readonly #unpriced: Counter<'provider' | 'model'>;
  readonly #retries: Counter<'provider'>;
  readonly #fallbacks: Counter<'provider'>;
  readonly #inlineConfigs: Counter<'result'>;
  readonly #limitRefusals: Counter<'code'>;
  readonly #limitFallbacks: Counter;
  readonly #usageAlerts: Counter<'policy_id'>;
  readonly #cacheLookups: Counter<'status'>;
  /** One child per cache status, made on first use: a label object would be hashed on every inc. */
  readonly #cacheLookupChildren = new Map<string, { inc(): void }>();
  readonly #cacheStored: Counter;
  readonly #cacheSaved: Counter;
  readonly #cacheFailures: Counter<'operation'>;
  readonly #embeddingFailures: Counter;

  readonly #sources: MetricSources = {};
  /**
   * The label children of one kind of request, made once: prom-client hashes a label object on every
   * inc/observe, which cost several µs per request; a child is one map lookup away.
   */
  readonly #children = new Map<string, RequestChildren>();
  readonly #attempts = new Map<string, { observe(value: number): void }>();

  constructor(sources: MetricSources = {}) {
    this.addSources(sources);
    const self = this.#sources;
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'gateway_' });
    this.#requests = new Counter({ name: 'gateway_requests_total', help: 'Requests that reached the gateway, by route kind, provider, model, status class and cache status.', labelNames: ['route_kind', 'provider', 'model', 'status_class', 'cache_status'], registers });
    this.#duration = new Histogram({ name: 'gateway_request_duration_seconds', help: 'Time from a request\'s arrival to the end of its response.', labelNames: ['route_kind', 'provider', 'status_class'], buckets: LATENCY_BUCKETS, registers });
    this.#upstream = new Histogram({ name: 'gateway_upstream_duration_seconds', help: 'Time from sending an upstream attempt to its response headers (or its failure), by provider and status class.', labelNames: ['provider', 'status_class'], buckets: LATENCY_BUCKETS, registers });
    this.#tokens = new Counter({ name: 'gateway_tokens_total', help: 'Tokens answers used, by type: input (cached input included), cached_input, output.', labelNames: ['provider', 'model', 'type'], registers });
    this.#cost = new Counter({ name: 'gateway_cost_usd_total', help: 'USD answers cost, from the pricing table.', labelNames: ['provider', 'model'], registers });
    this.#unpriced = new Counter({ name: 'gateway_unpriced_responses_total', help: 'Answers with token usage whose model the pricing table does not know (their cost counts as 0).', labelNames: ['provider', 'model'], registers });
    this.#retries = new Counter({ name: 'gateway_retries_total', help: 'Retries spent on the target that answered.', labelNames: ['provider'], registers });
    this.#fallbacks = new Counter({ name: 'gateway_fallbacks_total', help: 'Upstream attempts on another target after an earlier target of the same request failed.', labelNames: ['provider'], registers });
    this.#inlineConfigs = new Counter({ name: 'gateway_inline_config_cache_total', help: 'Inline configs (x-gateway-config JSON) found compiled (hit) or compiled (miss).', labelNames: ['result'], registers });
    this.#limitRefusals = new Counter({ name: 'gateway_limit_refusals_total', help: 'Requests (or attempts) refused by a policy: code rate_limited (429) or usage_limit_exceeded (412).', labelNames: ['code'], registers });
    this.#limitFallbacks = new Counter({ name: 'gateway_limit_counter_fallbacks_total', help: 'Limit checks counted in the process because Redis did not answer (fail open).', registers });
    this.#cacheLookups = new Counter({ name: 'gateway_cache_requests_total', help: 'Requests of a cached route and endpoint, by cache status: HIT, SEMANTIC HIT, MISS, SEMANTIC MISS, REFRESH.', labelNames: ['status'], registers });
    this.#cacheStored = new Counter({ name: 'gateway_cache_stored_bytes_total', help: 'Bytes of answers stored in the response cache.', registers });
    this.#cacheSaved = new Counter({ name: 'gateway_cache_saved_usd_total', help: 'USD cache hits saved: what the stored answers cost when the provider gave them.', registers });
    this.#cacheFailures = new Counter({ name: 'gateway_cache_backend_failures_total', help: 'Cache lookups (get) and stores (set) Redis did not answer; the request went on uncached.', labelNames: ['operation'], registers });
    this.#embeddingFailures = new Counter({ name: 'gateway_cache_embedding_failures_total', help: 'Semantic-cache embedding calls that failed; each such request was a SEMANTIC MISS.', registers });
    new Gauge({ name: 'gateway_cache_semantic_vectors', help: 'Vectors the semantic-cache index of this process holds.', registers, collect() { this.set(self.semanticVectors?.() ?? 0); } });
    new Gauge({ name: 'gateway_cache_memory_bytes', help: 'Bytes the in-memory response cache holds.', registers, collect() { this.set(self.cacheMemory?.().bytes ?? 0); } });
    new Gauge({ name: 'gateway_cache_memory_entries', help: 'Answers the in-memory response cache holds.', registers, collect() { this.set(self.cacheMemory?.().entries ?? 0); } });
    this.#usageAlerts = new Counter({ name: 'gateway_usage_limit_alerts_total', help: 'Usage-limit alerts: a group crossed its policy\'s alert_threshold (once per period).', labelNames: ['policy_id'], registers });

    new Gauge({
      name: 'gateway_circuit_state', help: 'Circuits that are not closed: 1 open, 2 half-open (a closed circuit has no series).', labelNames: ['config', 'target'], registers,
      collect() {
        this.reset();
        if (self.circuits === undefined) return;
        for (const circuit of self.circuits()) this.set({ config: circuit.configId, target: circuit.target }, circuit.state === 'open' ? 1 : 2);
      },
    });
    new Gauge({ name: 'gateway_upstream_pools', help: 'Upstream connection pools (one per provider origin).', registers, collect() { this.set(self.upstreamPools?.() ?? 0); } });
    new Gauge({ name: 'gateway_log_queue_records', help: 'Request records waiting to be written.', registers, collect() { this.set(self.logQueue?.().queued ?? 0); } });
    new Gauge({ name: 'gateway_log_dropped_records', help: 'Request records dropped since start because the queue was full or the store failed (monotonic).', registers, collect() { this.set(self.logQueue?.().dropped ?? 0); } });
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
        requests: this.#requests.labels(record.routeKind, provider, model, statusClass, cacheStatus),
        duration: this.#duration.labels(record.routeKind, provider, statusClass),
        input: this.#tokens.labels(provider, model, 'input'),
        output: this.#tokens.labels(provider, model, 'output'),
        cachedInput: this.#tokens.labels(provider, model, 'cached_input'),
        cost: this.#cost.labels(provider, model),
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
      if (child === undefined) this.#cacheLookupChildren.set(record.cacheStatus, (child = this.#cacheLookups.labels(record.cacheStatus)));
      child.inc();
      if (record.savedCostUsd !== null && record.savedCostUsd > 0) this.#cacheSaved.inc(record.savedCostUsd);
    }
    const usage = record.usage;
    if (usage !== null) {
      children.input.inc(usage.inputTokens);
      children.output.inc(usage.outputTokens);
      if (usage.cachedInputTokens > 0) children.cachedInput.inc(usage.cachedInputTokens);
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
      child = this.#upstream.labels(label, statusClass);
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

  usageAlert(policyId: string): void {
    this.#usageAlerts.inc({ policy_id: policyId });
  }

  cacheStored(bytes: number): void {
    this.#cacheStored.inc(bytes);
  }

  cacheEmbeddingFailure(): void {
    this.#embeddingFailures.inc();
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
  requests: { inc(): void };
  duration: { observe(value: number): void };
  input: { inc(value: number): void };
  output: { inc(value: number): void };
  cachedInput: { inc(value: number): void };
  cost: { inc(value: number): void };
}

function statusClassOf(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
}
