// GET /v1/health: 200 once the gateway is serving, 503 while it starts or drains, so a load balancer
// stops sending new requests before the process goes away.
import type { RequestContext } from './context.ts';
import { GatewayError } from '../core/errors.ts';
import { sendJson } from './respond.ts';

export const HEALTH_HANDLER = 'health.get';

export interface Readiness {
  readonly ready: boolean;
}

/** What setups add to the health answer (the loaded configs' revision, …), by field name. */
export type HealthDetails = Map<string, () => unknown>;

export function createHealthHandler(readiness: Readiness, details: HealthDetails = new Map()): (ctx: RequestContext) => Promise<void> {
  return async (ctx) => {
    if (!readiness.ready) throw new GatewayError('not_ready');
    const body: Record<string, unknown> = { status: 'ok' };
    for (const [name, value] of details) body[name] = value();
    sendJson(ctx.res, 200, body);
  };
}
