// A usage-limit alert: a group's count crossed its policy's alert_threshold. The counters report
// the crossing for exactly one charge per period (counts only grow, and Redis decides atomically
// across processes), so each alert goes out once: a log event, a metric, and, when
// GATEWAY_ALERT_WEBHOOK is set, a JSON POST to it (fire and forget, 5 s timeout; a failure is logged).
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

const WEBHOOK_TIMEOUT_MS = 5000;

export class UsageAlerts {
  readonly #logger: GatewayLogger;
  readonly #metrics: GatewayMetrics | null;
  readonly #webhook: string | null;

  constructor(logger: GatewayLogger, metrics: GatewayMetrics | null, webhook: string | null) {
    this.#logger = logger;
    this.#metrics = metrics;
    this.#webhook = webhook;
  }

  emit(alert: UsageAlert): void {
    this.#logger.warn('usage_limit_alert', { ...alert });
    this.#metrics?.usageAlert(alert.policy_id);
    const webhook = this.#webhook;
    if (webhook === null) return;
    fetch(webhook, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'usage_limit_alert', ...alert }), signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS) })
      .then((response) => {
        void response.body?.cancel();
        if (!response.ok) this.#logger.warn('usage_alert_webhook_failed', { policy_id: alert.policy_id, status: response.status });
      })
      .catch((error: unknown) => this.#logger.warn('usage_alert_webhook_failed', { policy_id: alert.policy_id, error: (error as Error).message }));
  }
}
