// GET /metrics: Prometheus text, outside /v1 and without a gateway key, unless GATEWAY_METRICS_KEY
// is set: then the scraper sends it as a bearer token (Prometheus' `authorization` setting) or as
// x-gateway-api-key, compared in constant time. Every finished record is counted.
import { createHash, timingSafeEqual } from 'node:crypto';
import { API_KEY_HEADER } from '../../core/gateway-headers.ts';
import { GatewayError } from '../../core/errors.ts';
import type { GatewaySetup } from '../../server/start.ts';
import type { GatewayMetrics } from '../../telemetry/metrics.ts';
import type { TelemetrySettings } from '../../telemetry/settings.ts';

export const METRICS_HANDLER = 'metrics.get';

export function setupMetrics(setup: GatewaySetup, metrics: GatewayMetrics | null, settings: TelemetrySettings): void {
  const served = setup.gateway.routes.routes.some((route) => route.handler === METRICS_HANDLER);
  if (metrics === null) {
    if (served) setup.gateway.registerHandler(METRICS_HANDLER, async () => {
      throw new GatewayError('route_not_found', 'Metrics are off on this gateway (GATEWAY_METRICS=off).');
    });
    return;
  }
  setup.onRecord(metrics.observeRecord);
  metrics.addSources({ backends: () => setup.backends, traffic: () => setup.gateway.traffic() });
  if (!served) return;
  const expected = settings.metricsKey === null ? null : digest(settings.metricsKey);
  setup.gateway.registerHandler(METRICS_HANDLER, async (ctx) => {
    if (expected !== null) {
      const auth = ctx.headers.authorization;
      const bearer = typeof auth === 'string' && /^Bearer\s+/i.test(auth) ? auth.replace(/^Bearer\s+/i, '').trim() : null;
      const key = ctx.headers[API_KEY_HEADER];
      const sent = bearer ?? (typeof key === 'string' ? key : null);
      if (sent === null) throw new GatewayError('missing_gateway_api_key', 'This gateway\'s /metrics needs GATEWAY_METRICS_KEY as a bearer token or x-gateway-api-key.');
      if (!timingSafeEqual(digest(sent), expected)) throw new GatewayError('invalid_gateway_api_key', 'That is not this gateway\'s metrics key.');
    }
    const text = await metrics.text();
    ctx.res.writeHead(200, { 'content-type': metrics.contentType, 'content-length': Buffer.byteLength(text) });
    ctx.res.end(text);
  });
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
