// A usage-limit alert: a group's count crossed its policy's alert_threshold. The counters report
// the crossing for exactly one charge per period (counts only grow, and Redis decides atomically
// across processes), so each alert is raised once: a log event, a metric, and, when
// GATEWAY_ALERT_WEBHOOK is set, a JSON POST to it. That POST is the alert's only delivery, so a
// receiver that is briefly down or busy must not lose it: a network error, a timeout, 408, 429 and
// 5xx are tried again (3 tries, 1 s and then 4 s apart); a few go at once, the rest wait in a
// bounded queue; and shutting down sends what waits for a retry at once instead of dropping it.
import type { GatewayLogger } from '../../core/log.ts';
import type { GatewayMetrics } from '../../telemetry/metrics.ts';

export interface UsageAlert {
  policy_id: string;
  type: 'cost' | 'tokens';
  group: Record<string, string>;
  period: string;
  used: number;
  alert_threshold: number;
  credit_limit: number;
  at: string;
}

export interface WebhookOptions {
  /** Wait before each try after the first (ms); its length + 1 is the number of tries. */
  retryDelaysMs?: readonly number[];
  /** Timeout of one try (ms). */
  timeoutMs?: number;
  /** POSTs in flight at once. */
  concurrency?: number;
  /** Alerts not yet delivered (in flight, queued, or waiting to retry); past it, a new alert is dropped (logged). */
  maxPending?: number;
}

const DEFAULTS: Required<WebhookOptions> = { retryDelaysMs: [1000, 4000], timeoutMs: 5000, concurrency: 4, maxPending: 1000 };

interface Delivery {
  alert: UsageAlert;
  body: string;
  tries: number;
}

export class UsageAlerts {
  readonly #logger: GatewayLogger;
  readonly #metrics: GatewayMetrics | null;
  readonly #webhook: string | null;
  readonly #options: Required<WebhookOptions>;
  /** Ready to send, oldest first. */
  readonly #ready: Delivery[] = [];
  /** Waiting out a retry delay, with the timer that moves each back to #ready. */
  readonly #waiting = new Map<Delivery, NodeJS.Timeout>();
  readonly #inFlight = new Set<Promise<void>>();
  #closing = false;

  constructor(logger: GatewayLogger, metrics: GatewayMetrics | null, webhook: string | null, options: WebhookOptions = {}) {
    this.#logger = logger;
    this.#metrics = metrics;
    this.#webhook = webhook;
    this.#options = { ...DEFAULTS, ...options };
  }

  emit(alert: UsageAlert): void {
    this.#logger.warn('usage_limit_alert', { ...alert });
    this.#metrics?.usageAlert(alert.policy_id);
    if (this.#webhook === null) return;
    if (this.pending >= this.#options.maxPending) {
      this.#logger.warn('usage_alert_webhook_dropped', { policy_id: alert.policy_id, pending: this.pending });
      return;
    }
    this.#ready.push({ alert, body: JSON.stringify({ event: 'usage_limit_alert', ...alert }), tries: 0 });
    this.#pump();
  }

  /** Alerts not yet delivered or given up on (queued, waiting to retry, or in flight). */
  get pending(): number {
    return this.#ready.length + this.#waiting.size + this.#inFlight.size;
  }

  /** Sends every alert still waiting to retry at once (a try that fails now is tried again at once, within its tries), and waits for them all. */
  async close(): Promise<void> {
    this.#closing = true;
    for (const [delivery, timer] of this.#waiting) {
      clearTimeout(timer);
      this.#ready.push(delivery);
    }
    this.#waiting.clear();
    this.#pump();
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  #pump(): void {
    while (this.#inFlight.size < this.#options.concurrency && this.#ready.length > 0) {
      const delivery = this.#ready.shift()!;
      const sending: Promise<void> = this.#send(delivery).finally(() => {
        this.#inFlight.delete(sending);
        this.#pump();
      });
      this.#inFlight.add(sending);
    }
  }

  async #send(delivery: Delivery): Promise<void> {
    delivery.tries++;
    let failure: { status?: number; error?: string };
    try {
      const response = await fetch(this.#webhook!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: delivery.body, signal: AbortSignal.timeout(this.#options.timeoutMs) });
      void response.body?.cancel();
      if (response.ok) return;
      failure = { status: response.status };
    } catch (error) {
      failure = { error: (error as Error).message };
    }
    const delay = this.#options.retryDelaysMs[delivery.tries - 1];
    const transient = failure.status === undefined || failure.status === 408 || failure.status === 429 || failure.status >= 500;
    const retrying = transient && delay !== undefined;
    this.#logger.warn('usage_alert_webhook_failed', { policy_id: delivery.alert.policy_id, ...failure, tries: delivery.tries, retrying });
    if (!retrying) return;
    if (this.#closing) {
      this.#ready.push(delivery);
      return;
    }
    const timer = setTimeout(() => {
      this.#waiting.delete(delivery);
      this.#ready.push(delivery);
      this.#pump();
    }, delay);
    // A retry alone never holds the process open; shutdown sends it through close().
    timer.unref();
    this.#waiting.set(delivery, timer);
  }
}
